#ifndef SCANPICK_CEVDEV_SHIM_H
#define SCANPICK_CEVDEV_SHIM_H
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>

/// Opens `path` for reading without blocking (`open` with flags is variadic in Swift's eyes).
/// Returns the descriptor, or -errno.
static inline int scanpick_evdev_open(const char *path) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

/// Reads the next event; 0 and `*event` filled, -EAGAIN when none is waiting, another -errno (ENODEV:
/// unplugged) when the device failed. A dropped-events report is resynchronised and skipped.
static inline int scanpick_evdev_next(struct libevdev *device, struct input_event *event) {
    int status = libevdev_next_event(device, LIBEVDEV_READ_FLAG_NORMAL, event);
    while (status == LIBEVDEV_READ_STATUS_SYNC) {
        status = libevdev_next_event(device, LIBEVDEV_READ_FLAG_SYNC, event);
    }
    if (status == LIBEVDEV_READ_STATUS_SUCCESS) return 0;
    return status;
}

/// Creates a virtual keyboard through uinput (for tests and benchmarks that type a barcode the way
/// a scanner would); NULL and `*error` set (-errno) when uinput is not available.
static inline struct libevdev_uinput *scanpick_uinput_keyboard(const char *name, int *error) {
    struct libevdev *device = libevdev_new();
    libevdev_set_name(device, name);
    libevdev_enable_event_type(device, EV_KEY);
    for (unsigned int key = 1; key < 128; key++) libevdev_enable_event_code(device, EV_KEY, key, NULL);
    struct libevdev_uinput *uinput = NULL;
    int status = libevdev_uinput_create_from_device(device, LIBEVDEV_UINPUT_OPEN_MANAGED, &uinput);
    libevdev_free(device);
    if (status != 0) {
        *error = status;
        return NULL;
    }
    return uinput;
}
#endif
