#ifndef SCANPICK_CEVDEV_SHIM_H
#define SCANPICK_CEVDEV_SHIM_H
#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>

/// Opens `path` for reading without blocking (`open` with flags is variadic in Swift's eyes).
/// Returns the descriptor, or -errno.
static inline int scanpick_evdev_open(const char *path) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

/// Reads the next event, in libevdev's normal mode or, after the kernel dropped events, its sync
/// mode. Returns 0 for an event, 1 when the kernel reports dropped events (read in sync mode next,
/// until -EAGAIN), 2 for an event of the sync mode's state delta, -EAGAIN when none is waiting,
/// another -errno (ENODEV: unplugged) when the device failed.
static inline int scanpick_evdev_next(struct libevdev *device, int syncing, struct input_event *event) {
    int status = libevdev_next_event(
        device, syncing ? LIBEVDEV_READ_FLAG_SYNC : LIBEVDEV_READ_FLAG_NORMAL, event);
    if (status == LIBEVDEV_READ_STATUS_SUCCESS) return 0;
    if (status == LIBEVDEV_READ_STATUS_SYNC) return syncing ? 2 : 1;
    return status;
}

/// Whether `key` is down, by libevdev's state of the device (kept in step through a sync).
static inline int scanpick_evdev_key_down(struct libevdev *device, unsigned int key) {
    return libevdev_get_event_value(device, EV_KEY, key) == 1;
}

/// Stamps events with CLOCK_MONOTONIC, so key timing is immune to wall-clock steps; 0 or -errno.
static inline int scanpick_evdev_use_monotonic_clock(struct libevdev *device) {
    return libevdev_set_clock_id(device, CLOCK_MONOTONIC);
}

/// Creates a virtual keyboard through uinput (for tests and benchmarks that type a barcode the way
/// a scanner would); NULL and `*error` set (-errno) when uinput is not available. With a `vendor`
/// of 0 or more it says it is a USB device of that vendor and `product` (as a real scanner does, so
/// udev rules that match scanners by vendor match it).
static inline struct libevdev_uinput *scanpick_uinput_keyboard(
    const char *name, int vendor, int product, int *error) {
    struct libevdev *device = libevdev_new();
    libevdev_set_name(device, name);
    if (vendor >= 0) {
        libevdev_set_id_bustype(device, BUS_USB);
        libevdev_set_id_vendor(device, vendor);
        libevdev_set_id_product(device, product);
    }
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
