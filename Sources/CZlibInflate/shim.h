// zlib (every machine of this kind has its headers): HealthImport inflates the small files of an export.zip (GPX
// routes, electrocardiograms) whole, into a buffer of the size the zip declares. A module of its own name, because
// ZIPFoundation's `CZlib` module is not a product other packages may import.
#include <zlib.h>
