// zxing-cpp 1.4 behind a C function, so Swift needs no C++ interop.
//
// Why only this call, with these options: Debian's libZXing is built with assertions on, and
// `Result::operator==` (core/src/Result.cpp in 1.4.0) asserts `lineCount() == 1` when it compares
// two linear results with the same format and bytes. It is called from two places:
//   - `ReadBarcodes` (and `ReadBarcode` when `maxNumberOfSymbols == 1`) checks each result of a
//     later image-pyramid layer against those of earlier ones, whose line count is by then 2 or more:
//     any linear code found twice aborts. So this file calls only `ReadBarcode` with
//     `maxNumberOfSymbols` left at its default (255), which goes straight to
//     `MultiFormatReader::read` with no pyramid and no such comparison.
//   - the linear reader's row loop (`OneD::DoDecode`) compares each new row's result with those of
//     earlier rows. The new result has a line count of exactly 1 there (made with 0, incremented
//     once) for every linear reader except DataBar and DataBar Expanded, whose results start with a
//     line count estimated from their pairs. So DataBar formats are never asked for (ZBar and our own
//     DataBar Expanded decoder read them).
// Matrix formats return from `operator==` before the assertion. Measured: every image of the
// 737-image corpus through this call in one process, where `ReadBarcodes` aborted on 84.
#define ZX_USE_UTF8 1
#include <ZXing/ReadBarcode.h>

#include <cstdlib>
#include <cstring>

#include "CZXing.h"

using namespace ZXing;

static const unsigned int unsafeFormats = SCANPICK_ZXING_DATABAR | SCANPICK_ZXING_DATABAR_EXPANDED;
static const unsigned int knownFormats = SCANPICK_ZXING_AZTEC | SCANPICK_ZXING_CODABAR | SCANPICK_ZXING_CODE39 |
    SCANPICK_ZXING_CODE93 | SCANPICK_ZXING_CODE128 | SCANPICK_ZXING_DATAMATRIX | SCANPICK_ZXING_EAN8 |
    SCANPICK_ZXING_EAN13 | SCANPICK_ZXING_ITF | SCANPICK_ZXING_PDF417 | SCANPICK_ZXING_QRCODE | SCANPICK_ZXING_UPCA |
    SCANPICK_ZXING_UPCE;

extern "C" unsigned int scanpick_zxing_safe_formats(void) { return knownFormats & ~unsafeFormats; }

extern "C" int scanpick_zxing_read(
    const unsigned char *pixels, int width, int height, unsigned int formats, int min_line_count, int try_rotate,
    scanpick_zxing_symbol *symbol) {
    std::memset(symbol, 0, sizeof *symbol);
    formats &= scanpick_zxing_safe_formats();
    if (formats == 0 || width <= 0 || height <= 0 || min_line_count < 1 || min_line_count > 255) return 0;
    try {
        DecodeHints hints;
        hints.setFormats(BarcodeFormats(static_cast<BarcodeFormat>(formats)));
        hints.setTryHarder(true);
        hints.setTryRotate(try_rotate != 0);
        hints.setReturnCodabarStartEnd(true);  // as ZBar reports Codabar
        hints.setMinLineCount(static_cast<uint8_t>(min_line_count));
        // maxNumberOfSymbols stays 255: see the top of this file.
        Result result = ReadBarcode(ImageView(pixels, width, height, ImageFormat::Lum), hints);
        if (!result.isValid()) return 0;
        bool isGS1 = result.contentType() == ContentType::GS1;
        const ByteArray &bytes = result.bytes();
        // A GS1 symbol's payload is its bare element string with GS after a variable-length field, as
        // ZBar writes it; other text is zxing's UTF-8 reading (ECI or guessed character set).
        std::string payload = isGS1 ? std::string(bytes.begin(), bytes.end()) : result.text();
        symbol->bytes = static_cast<unsigned char *>(std::malloc(payload.size() + 1));
        if (!symbol->bytes) return -1;
        std::memcpy(symbol->bytes, payload.data(), payload.size());
        symbol->bytes[payload.size()] = 0;
        symbol->length = static_cast<int>(payload.size());
        symbol->format = static_cast<unsigned int>(result.format());
        symbol->isGS1 = isGS1 ? 1 : 0;
        const Position &position = result.position();
        for (int corner = 0; corner < 4; ++corner) {
            symbol->corners[2 * corner] = position[corner].x;
            symbol->corners[2 * corner + 1] = position[corner].y;
        }
        return 1;
    } catch (...) {
        scanpick_zxing_symbol_free(symbol);
        return -1;
    }
}

extern "C" void scanpick_zxing_symbol_free(scanpick_zxing_symbol *symbol) {
    std::free(symbol->bytes);
    symbol->bytes = nullptr;
    symbol->length = 0;
}
