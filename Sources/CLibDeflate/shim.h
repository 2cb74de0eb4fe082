// libdeflate (Debian: libdeflate-dev): whole-buffer DEFLATE decompression, about twice as fast as zlib's inflate.
// HealthImport uses it for the small files of an export.zip (GPX routes, electrocardiograms), whose sizes the zip
// declares up front.
#include <libdeflate.h>
