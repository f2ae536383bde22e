#ifndef SCANPICK_CV4L2_H
#define SCANPICK_CV4L2_H
#include <stddef.h>
#include <stdint.h>

/// A small C face over libv4l2 (v4l2_open and v4l2_ioctl are variadic and the VIDIOC_* requests are
/// macros, which Swift cannot use). Every function returns 0 (or a count) on success and -errno on
/// failure.

typedef struct {
    char driver[32];
    char card[64];
    char bus[64];
    uint32_t capabilities;
    int is_capture;
    int can_stream;
} scanpick_v4l2_info;

/// Pixel formats scanpick reads, as V4L2 fourcc values.
extern const uint32_t scanpick_v4l2_fmt_grey, scanpick_v4l2_fmt_yuyv, scanpick_v4l2_fmt_uyvy,
    scanpick_v4l2_fmt_yuv420, scanpick_v4l2_fmt_yvu420, scanpick_v4l2_fmt_nv12, scanpick_v4l2_fmt_nv21,
    scanpick_v4l2_fmt_mjpeg, scanpick_v4l2_fmt_jpeg;
/// ENUM_FMT flag: the format is converted by libv4lconvert, not given by the driver.
extern const uint32_t scanpick_v4l2_flag_emulated;

int scanpick_v4l2_open(const char *path);
void scanpick_v4l2_close(int fd);
int scanpick_v4l2_query(int fd, scanpick_v4l2_info *info);
int scanpick_v4l2_enum_format(int fd, uint32_t index, uint32_t *fourcc, uint32_t *flags, char *description, size_t length);
/// Frame sizes of a format: discrete sizes by index; a stepwise or continuous range gives its largest
/// size at index 0 with `*range` set (any size up to it can be asked for).
int scanpick_v4l2_enum_size(int fd, uint32_t fourcc, uint32_t index, uint32_t *width, uint32_t *height, int *range);
int scanpick_v4l2_set_format(int fd, uint32_t fourcc, uint32_t width, uint32_t height, uint32_t *out_fourcc,
                             uint32_t *out_width, uint32_t *out_height, uint32_t *bytes_per_line, uint32_t *size_image);
int scanpick_v4l2_set_fps(int fd, uint32_t fps);
/// Requests `count` mmap buffers, maps and queues them, and starts streaming; `got` is how many.
int scanpick_v4l2_start(int fd, uint32_t count, void **buffers, size_t *lengths, uint32_t *got);
/// Waits up to `timeout_ms` for a frame: >0 ready, 0 timed out, -errno on error.
int scanpick_v4l2_poll(int fd, int timeout_ms);
/// Takes a filled buffer: its index, bytes used, and capture time (seconds, monotonic).
int scanpick_v4l2_dequeue(int fd, uint32_t *index, uint32_t *bytes_used, double *timestamp);
int scanpick_v4l2_requeue(int fd, uint32_t index);
void scanpick_v4l2_stop(int fd, void **buffers, size_t *lengths, uint32_t count);
#endif
