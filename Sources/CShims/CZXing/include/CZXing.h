#ifndef SCANPICK_CZXING_H
#define SCANPICK_CZXING_H

#ifdef __cplusplus
extern "C" {
#endif

/// zxing-cpp 1.4's formats, as the bits of its `BarcodeFormat` (the values are part of its C-like
/// interfaces and stable).
enum {
    SCANPICK_ZXING_AZTEC = 1 << 0,
    SCANPICK_ZXING_CODABAR = 1 << 1,
    SCANPICK_ZXING_CODE39 = 1 << 2,
    SCANPICK_ZXING_CODE93 = 1 << 3,
    SCANPICK_ZXING_CODE128 = 1 << 4,
    SCANPICK_ZXING_DATABAR = 1 << 5,
    SCANPICK_ZXING_DATABAR_EXPANDED = 1 << 6,
    SCANPICK_ZXING_DATAMATRIX = 1 << 7,
    SCANPICK_ZXING_EAN8 = 1 << 8,
    SCANPICK_ZXING_EAN13 = 1 << 9,
    SCANPICK_ZXING_ITF = 1 << 10,
    SCANPICK_ZXING_PDF417 = 1 << 12,
    SCANPICK_ZXING_QRCODE = 1 << 13,
    SCANPICK_ZXING_UPCA = 1 << 14,
    SCANPICK_ZXING_UPCE = 1 << 15,
};

/// One code zxing-cpp found: its format (one bit above), its payload bytes (GS1's FNC1 as the group
/// separator 0x1D, no symbology identifier), whether it is a GS1 symbol, and its four corners
/// (x, y pairs: top left, top right, bottom right, bottom left).
typedef struct {
    unsigned int format;
    unsigned char *bytes;
    int length;
    int isGS1;
    int corners[8];
} scanpick_zxing_symbol;

/// Looks once for one code of `formats` in an 8-bit grey image (`pixels`: `height` rows of `width`
/// bytes). Linear codes must be seen on `min_line_count` scan lines; with `try_rotate`, linear codes
/// are looked for across the picture too (PDF417 at 90° and 270°). Returns 1 and fills `symbol`
/// (free it with `scanpick_zxing_symbol_free`), 0 when nothing was found, -1 when zxing-cpp threw
/// (bad size, out of memory). DataBar formats are never looked for (see zxing.cpp: they reach an
/// assertion that aborts the process).
int scanpick_zxing_read(
    const unsigned char *pixels, int width, int height, unsigned int formats, int min_line_count, int try_rotate,
    scanpick_zxing_symbol *symbol);

/// Frees what `scanpick_zxing_read` allocated in `symbol`.
void scanpick_zxing_symbol_free(scanpick_zxing_symbol *symbol);

/// The formats `scanpick_zxing_read` accepts: everything zxing-cpp 1.4 reads except DataBar and
/// DataBar Expanded.
unsigned int scanpick_zxing_safe_formats(void);

#ifdef __cplusplus
}
#endif

#endif
