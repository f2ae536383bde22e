#include "CV4L2.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/videodev2.h>
#include <libv4l2.h>

const uint32_t scanpick_v4l2_fmt_grey = V4L2_PIX_FMT_GREY;
const uint32_t scanpick_v4l2_fmt_yuyv = V4L2_PIX_FMT_YUYV;
const uint32_t scanpick_v4l2_fmt_uyvy = V4L2_PIX_FMT_UYVY;
const uint32_t scanpick_v4l2_fmt_yuv420 = V4L2_PIX_FMT_YUV420;
const uint32_t scanpick_v4l2_fmt_yvu420 = V4L2_PIX_FMT_YVU420;
const uint32_t scanpick_v4l2_fmt_nv12 = V4L2_PIX_FMT_NV12;
const uint32_t scanpick_v4l2_fmt_nv21 = V4L2_PIX_FMT_NV21;
const uint32_t scanpick_v4l2_fmt_mjpeg = V4L2_PIX_FMT_MJPEG;
const uint32_t scanpick_v4l2_fmt_jpeg = V4L2_PIX_FMT_JPEG;
const uint32_t scanpick_v4l2_flag_emulated = V4L2_FMT_FLAG_EMULATED;

static int xioctl(int fd, unsigned long request, void *argument) {
    int result;
    do {
        result = v4l2_ioctl(fd, request, argument);
    } while (result == -1 && errno == EINTR);
    return result == -1 ? -errno : result;
}

int scanpick_v4l2_open(const char *path) {
    int fd = v4l2_open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC, 0);
    return fd < 0 ? -errno : fd;
}

void scanpick_v4l2_close(int fd) { v4l2_close(fd); }

int scanpick_v4l2_query(int fd, scanpick_v4l2_info *info) {
    struct v4l2_capability capability;
    memset(&capability, 0, sizeof capability);
    int result = xioctl(fd, VIDIOC_QUERYCAP, &capability);
    if (result < 0) return result;
    memset(info, 0, sizeof *info);
    strncpy(info->driver, (const char *)capability.driver, sizeof info->driver - 1);
    strncpy(info->card, (const char *)capability.card, sizeof info->card - 1);
    strncpy(info->bus, (const char *)capability.bus_info, sizeof info->bus - 1);
    uint32_t caps = (capability.capabilities & V4L2_CAP_DEVICE_CAPS) ? capability.device_caps : capability.capabilities;
    info->capabilities = caps;
    info->is_capture = (caps & V4L2_CAP_VIDEO_CAPTURE) != 0;
    info->can_stream = (caps & V4L2_CAP_STREAMING) != 0;
    return 0;
}

int scanpick_v4l2_enum_format(int fd, uint32_t index, uint32_t *fourcc, uint32_t *flags, char *description, size_t length) {
    struct v4l2_fmtdesc format;
    memset(&format, 0, sizeof format);
    format.index = index;
    format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    int result = xioctl(fd, VIDIOC_ENUM_FMT, &format);
    if (result < 0) return result;
    *fourcc = format.pixelformat;
    *flags = format.flags;
    if (length > 0) {
        strncpy(description, (const char *)format.description, length - 1);
        description[length - 1] = 0;
    }
    return 0;
}

int scanpick_v4l2_enum_size(int fd, uint32_t fourcc, uint32_t index, uint32_t *width, uint32_t *height, int *range) {
    struct v4l2_frmsizeenum size;
    memset(&size, 0, sizeof size);
    size.index = index;
    size.pixel_format = fourcc;
    int result = xioctl(fd, VIDIOC_ENUM_FRAMESIZES, &size);
    if (result < 0) return result;
    if (size.type == V4L2_FRMSIZE_TYPE_DISCRETE) {
        *width = size.discrete.width;
        *height = size.discrete.height;
        *range = 0;
    } else {
        *range = 1;
        if (index > 0) return -EINVAL;
        *width = size.stepwise.max_width;
        *height = size.stepwise.max_height;
    }
    return 0;
}

int scanpick_v4l2_set_format(int fd, uint32_t fourcc, uint32_t width, uint32_t height, uint32_t *out_fourcc,
                             uint32_t *out_width, uint32_t *out_height, uint32_t *bytes_per_line, uint32_t *size_image) {
    struct v4l2_format format;
    memset(&format, 0, sizeof format);
    format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    format.fmt.pix.pixelformat = fourcc;
    format.fmt.pix.width = width;
    format.fmt.pix.height = height;
    format.fmt.pix.field = V4L2_FIELD_ANY;
    int result = xioctl(fd, VIDIOC_S_FMT, &format);
    if (result < 0) return result;
    *out_fourcc = format.fmt.pix.pixelformat;
    *out_width = format.fmt.pix.width;
    *out_height = format.fmt.pix.height;
    *bytes_per_line = format.fmt.pix.bytesperline;
    *size_image = format.fmt.pix.sizeimage;
    return 0;
}

int scanpick_v4l2_set_fps(int fd, uint32_t fps) {
    struct v4l2_streamparm parameters;
    memset(&parameters, 0, sizeof parameters);
    parameters.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    parameters.parm.capture.timeperframe.numerator = 1;
    parameters.parm.capture.timeperframe.denominator = fps;
    return xioctl(fd, VIDIOC_S_PARM, &parameters);
}

int scanpick_v4l2_start(int fd, uint32_t count, void **buffers, size_t *lengths, uint32_t *got) {
    struct v4l2_requestbuffers request;
    memset(&request, 0, sizeof request);
    request.count = count;
    request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    request.memory = V4L2_MEMORY_MMAP;
    int result = xioctl(fd, VIDIOC_REQBUFS, &request);
    if (result < 0) return result;
    if (request.count < 2) return -ENOMEM;
    uint32_t mapped = 0;
    for (; mapped < request.count && mapped < count; mapped++) {
        struct v4l2_buffer buffer;
        memset(&buffer, 0, sizeof buffer);
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        buffer.memory = V4L2_MEMORY_MMAP;
        buffer.index = mapped;
        result = xioctl(fd, VIDIOC_QUERYBUF, &buffer);
        if (result < 0) break;
        void *start = v4l2_mmap(NULL, buffer.length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, buffer.m.offset);
        if (start == MAP_FAILED) { result = -errno; break; }
        buffers[mapped] = start;
        lengths[mapped] = buffer.length;
        result = xioctl(fd, VIDIOC_QBUF, &buffer);
        if (result < 0) { mapped++; break; }
    }
    *got = mapped;
    if (result < 0) return result;
    enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    return xioctl(fd, VIDIOC_STREAMON, &type);
}

int scanpick_v4l2_poll(int fd, int timeout_ms) {
    struct pollfd descriptor = {.fd = fd, .events = POLLIN};
    int result = poll(&descriptor, 1, timeout_ms);
    if (result < 0) return errno == EINTR ? 0 : -errno;
    if (result > 0 && (descriptor.revents & (POLLERR | POLLHUP | POLLNVAL))) return -ENODEV;
    return result;
}

int scanpick_v4l2_dequeue(int fd, uint32_t *index, uint32_t *bytes_used, double *timestamp) {
    struct v4l2_buffer buffer;
    memset(&buffer, 0, sizeof buffer);
    buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    buffer.memory = V4L2_MEMORY_MMAP;
    int result = xioctl(fd, VIDIOC_DQBUF, &buffer);
    if (result < 0) return result;
    *index = buffer.index;
    *bytes_used = buffer.bytesused;
    *timestamp = (double)buffer.timestamp.tv_sec + (double)buffer.timestamp.tv_usec / 1e6;
    return 0;
}

int scanpick_v4l2_requeue(int fd, uint32_t index) {
    struct v4l2_buffer buffer;
    memset(&buffer, 0, sizeof buffer);
    buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    buffer.memory = V4L2_MEMORY_MMAP;
    buffer.index = index;
    return xioctl(fd, VIDIOC_QBUF, &buffer);
}

void scanpick_v4l2_stop(int fd, void **buffers, size_t *lengths, uint32_t count) {
    enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    xioctl(fd, VIDIOC_STREAMOFF, &type);
    for (uint32_t index = 0; index < count; index++) {
        if (buffers[index]) v4l2_munmap(buffers[index], lengths[index]);
    }
    struct v4l2_requestbuffers request;
    memset(&request, 0, sizeof request);
    request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    request.memory = V4L2_MEMORY_MMAP;
    xioctl(fd, VIDIOC_REQBUFS, &request);
}
