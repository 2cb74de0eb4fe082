import Foundation

/// A QR code encoder (ISO/IEC 18004, Model 2): byte mode, any error-correction level, versions 1–40, Reed–Solomon
/// over GF(256), the eight masks with the standard penalty rules. Renders as Unicode half blocks for terminals, SVG,
/// or PNG.
///
/// ```swift
/// let qr = try QRCode.encode(Array(payload.utf8), level: .medium)
/// print(qr.terminalString())
/// try qr.svg().write(toFile: "pair.svg", atomically: true, encoding: .utf8)
/// ```
public struct QRCode: Sendable, Equatable {
    public enum Level: Int, Sendable, CaseIterable {
        case low = 0, medium, quartile, high
        /// The two format bits.
        var formatBits: Int { [1, 0, 3, 2][rawValue] }
    }

    public struct TooLong: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    public let version: Int
    public let level: Level
    public let mask: Int
    /// Side length in modules (21 + 4 × (version − 1)).
    public let size: Int
    /// Row-major, true for dark.
    public let modules: [Bool]

    public func isDark(x: Int, y: Int) -> Bool {
        x >= 0 && y >= 0 && x < size && y < size && modules[y * size + x]
    }

    // MARK: Encoding

    /// Encodes `data` in byte mode at the smallest version in `versions` that holds it.
    /// - Parameter mask: a fixed mask (0–7), or nil to choose the one with the lowest penalty.
    public static func encode(_ data: [UInt8], level: Level = .medium, versions: ClosedRange<Int> = 1...40,
                              mask: Int? = nil) throws(TooLong) -> QRCode {
        precondition(versions.lowerBound >= 1 && versions.upperBound <= 40)
        precondition(mask.map { (0...7).contains($0) } ?? true)
        var chosen: Int?
        for version in versions {
            let countBits = version <= 9 ? 8 : 16
            guard data.count < (1 << countBits) else { continue }
            if 4 + countBits + data.count * 8 <= dataCodewords(version, level) * 8 {
                chosen = version
                break
            }
        }
        guard let version = chosen else {
            throw TooLong(description: "\(data.count) bytes do not fit a version \(versions.upperBound) QR code at this error-correction level")
        }
        // Segment: mode 0100, count, bytes; terminator; pad to bytes; pad codewords.
        var bits = BitBuffer()
        bits.append(0b0100, 4)
        bits.append(data.count, version <= 9 ? 8 : 16)
        for byte in data { bits.append(Int(byte), 8) }
        let capacity = dataCodewords(version, level) * 8
        bits.append(0, min(4, capacity - bits.count))
        bits.append(0, (8 - bits.count % 8) % 8)
        var pad = 0xEC
        while bits.count < capacity {
            bits.append(pad, 8)
            pad ^= 0xEC ^ 0x11
        }
        let codewords = addErrorCorrection(bits.bytes, version: version, level: level)
        var matrix = Matrix(version: version)
        matrix.drawFunctionPatterns()
        matrix.drawCodewords(codewords)
        let masks = mask.map { [$0] } ?? Array(0...7)
        var best: (penalty: Int, modules: [Bool], mask: Int)?
        for candidate in masks {
            var trial = matrix
            trial.applyMask(candidate)
            trial.drawFormatBits(level: level, mask: candidate)
            let penalty = trial.penalty()
            if best == nil || penalty < best!.penalty { best = (penalty, trial.modules, candidate) }
        }
        return QRCode(version: version, level: level, mask: best!.mask, size: matrix.size, modules: best!.modules)
    }

    public static func encode(_ text: String, level: Level = .medium) throws(TooLong) -> QRCode {
        try encode(Array(text.utf8), level: level)
    }

    // MARK: Tables

    // Index 0 unused. From ISO/IEC 18004 table 9 (checked against an independent implementation in the tests).
    static let eccCodewordsPerBlock: [[Int]] = [
        [-1, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        [-1, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
        [-1, 13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30, 28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        [-1, 17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28, 30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
    ]
    static let errorCorrectionBlocks: [[Int]] = [
        [-1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],
        [-1, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
        [-1, 1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20, 23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68],
        [-1, 1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25, 25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81],
    ]

    /// Modules available for data and error correction (everything but function patterns and format/version info).
    static func rawDataModules(_ version: Int) -> Int {
        var result = (16 * version + 128) * version + 64
        if version >= 2 {
            let align = version / 7 + 2
            result -= (25 * align - 10) * align - 55
            if version >= 7 { result -= 36 }
        }
        return result
    }

    static func dataCodewords(_ version: Int, _ level: Level) -> Int {
        rawDataModules(version) / 8
            - eccCodewordsPerBlock[level.rawValue][version] * errorCorrectionBlocks[level.rawValue][version]
    }

    // MARK: Reed–Solomon

    static func gfMultiply(_ x: UInt8, _ y: UInt8) -> UInt8 {
        var z = 0
        for i in stride(from: 7, through: 0, by: -1) {
            z = (z << 1) ^ ((z >> 7) * 0x11D)
            z ^= ((Int(y) >> i) & 1) * Int(x)
        }
        return UInt8(z & 0xFF)
    }

    static func rsDivisor(degree: Int) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: degree)
        result[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for j in 0..<degree {
                result[j] = gfMultiply(result[j], root)
                if j + 1 < degree { result[j] ^= result[j + 1] }
            }
            root = gfMultiply(root, 0x02)
        }
        return result
    }

    static func rsRemainder(_ data: ArraySlice<UInt8>, divisor: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: divisor.count)
        for byte in data {
            let factor = byte ^ result.removeFirst()
            result.append(0)
            for i in result.indices { result[i] ^= gfMultiply(divisor[i], factor) }
        }
        return result
    }

    /// Splits the data codewords into blocks, appends each block's ECC, interleaves.
    static func addErrorCorrection(_ data: [UInt8], version: Int, level: Level) -> [UInt8] {
        let blocks = errorCorrectionBlocks[level.rawValue][version]
        let eccLength = eccCodewordsPerBlock[level.rawValue][version]
        let raw = rawDataModules(version) / 8
        let shortBlocks = blocks - raw % blocks
        let shortLength = raw / blocks
        let divisor = rsDivisor(degree: eccLength)
        var split: [[UInt8]] = []
        var offset = 0
        for i in 0..<blocks {
            let length = shortLength - eccLength + (i < shortBlocks ? 0 : 1)
            var block = Array(data[offset..<(offset + length)])
            offset += length
            let ecc = rsRemainder(ArraySlice(block), divisor: divisor)
            if i < shortBlocks { block.append(0) }
            split.append(block + ecc)
        }
        var result: [UInt8] = []
        for i in 0..<split[0].count {
            for (j, block) in split.enumerated() where i != shortLength - eccLength || j >= shortBlocks {
                result.append(block[i])
            }
        }
        return result
    }

    struct BitBuffer {
        var bits: [Bool] = []
        var count: Int { bits.count }
        mutating func append(_ value: Int, _ length: Int) {
            guard length > 0 else { return }
            for i in stride(from: length - 1, through: 0, by: -1) { bits.append((value >> i) & 1 == 1) }
        }
        var bytes: [UInt8] {
            stride(from: 0, to: bits.count, by: 8).map { start in
                (0..<8).reduce(UInt8(0)) { $0 << 1 | (start + $1 < bits.count && bits[start + $1] ? 1 : 0) }
            }
        }
    }

    // MARK: Matrix

    struct Matrix {
        let version: Int
        let size: Int
        var modules: [Bool]
        var isFunction: [Bool]

        init(version: Int) {
            self.version = version
            size = version * 4 + 17
            modules = Array(repeating: false, count: size * size)
            isFunction = Array(repeating: false, count: size * size)
        }

        subscript(x: Int, y: Int) -> Bool {
            get { modules[y * size + x] }
            set { modules[y * size + x] = newValue }
        }

        mutating func setFunction(_ x: Int, _ y: Int, _ dark: Bool) {
            modules[y * size + x] = dark
            isFunction[y * size + x] = true
        }

        mutating func drawFunctionPatterns() {
            for i in 0..<size {
                setFunction(6, i, i % 2 == 0)
                setFunction(i, 6, i % 2 == 0)
            }
            drawFinder(3, 3)
            drawFinder(size - 4, 3)
            drawFinder(3, size - 4)
            let positions = alignmentPositions
            let count = positions.count
            for i in 0..<count {
                for j in 0..<count where !(i == 0 && j == 0 || i == 0 && j == count - 1 || i == count - 1 && j == 0) {
                    drawAlignment(positions[i], positions[j])
                }
            }
            drawFormatBits(level: .low, mask: 0)   // reserves the areas; redrawn for real after masking
            drawVersion()
        }

        var alignmentPositions: [Int] {
            guard version > 1 else { return [] }
            let count = version / 7 + 2
            let step = version == 32 ? 26 : (version * 4 + count * 2 + 1) / (count * 2 - 2) * 2
            var result = [6]
            var position = size - 7
            var tail: [Int] = []
            for _ in 0..<(count - 1) {
                tail.insert(position, at: 0)
                position -= step
            }
            result += tail
            return result
        }

        mutating func drawFinder(_ cx: Int, _ cy: Int) {
            for dy in -4...4 {
                for dx in -4...4 {
                    let distance = max(abs(dx), abs(dy))
                    let x = cx + dx, y = cy + dy
                    if x >= 0 && x < size && y >= 0 && y < size {
                        setFunction(x, y, distance != 2 && distance != 4)
                    }
                }
            }
        }

        mutating func drawAlignment(_ cx: Int, _ cy: Int) {
            for dy in -2...2 {
                for dx in -2...2 { setFunction(cx + dx, cy + dy, max(abs(dx), abs(dy)) != 1) }
            }
        }

        mutating func drawFormatBits(level: Level, mask: Int) {
            let data = level.formatBits << 3 | mask
            var remainder = data
            for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
            let bits = (data << 10 | remainder) ^ 0x5412
            func bit(_ i: Int) -> Bool { (bits >> i) & 1 == 1 }
            for i in 0...5 { setFunction(8, i, bit(i)) }
            setFunction(8, 7, bit(6))
            setFunction(8, 8, bit(7))
            setFunction(7, 8, bit(8))
            for i in 9..<15 { setFunction(14 - i, 8, bit(i)) }
            for i in 0..<8 { setFunction(size - 1 - i, 8, bit(i)) }
            for i in 8..<15 { setFunction(8, size - 15 + i, bit(i)) }
            setFunction(8, size - 8, true)
        }

        mutating func drawVersion() {
            guard version >= 7 else { return }
            var remainder = version
            for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
            let bits = version << 12 | remainder
            for i in 0..<18 {
                let dark = (bits >> i) & 1 == 1
                let a = size - 11 + i % 3, b = i / 3
                setFunction(a, b, dark)
                setFunction(b, a, dark)
            }
        }

        mutating func drawCodewords(_ data: [UInt8]) {
            var i = 0
            var right = size - 1
            while right >= 1 {
                if right == 6 { right = 5 }
                for vertical in 0..<size {
                    for j in 0..<2 {
                        let x = right - j
                        let upward = (right + 1) & 2 == 0
                        let y = upward ? size - 1 - vertical : vertical
                        if !isFunction[y * size + x] && i < data.count * 8 {
                            self[x, y] = (data[i >> 3] >> (7 - (i & 7))) & 1 == 1
                            i += 1
                        }
                    }
                }
                right -= 2
            }
        }

        mutating func applyMask(_ mask: Int) {
            for y in 0..<size {
                for x in 0..<size where !isFunction[y * size + x] {
                    let invert: Bool
                    switch mask {
                    case 0: invert = (x + y) % 2 == 0
                    case 1: invert = y % 2 == 0
                    case 2: invert = x % 3 == 0
                    case 3: invert = (x + y) % 3 == 0
                    case 4: invert = (x / 3 + y / 2) % 2 == 0
                    case 5: invert = x * y % 2 + x * y % 3 == 0
                    case 6: invert = (x * y % 2 + x * y % 3) % 2 == 0
                    default: invert = ((x + y) % 2 + x * y % 3) % 2 == 0
                    }
                    if invert { modules[y * size + x].toggle() }
                }
            }
        }

        /// The standard penalty: runs of five or more, 2×2 blocks, finder-like patterns, dark/light balance.
        func penalty() -> Int {
            var result = 0
            for pass in 0..<2 {
                for a in 0..<size {
                    var runColor = false
                    var run = 0
                    var history = [Int](repeating: 0, count: 7)
                    for b in 0..<size {
                        let color = pass == 0 ? self[b, a] : self[a, b]
                        if color == runColor {
                            run += 1
                            if run == 5 { result += 3 } else if run > 5 { result += 1 }
                        } else {
                            addHistory(run, &history)
                            if !runColor { result += countFinderPatterns(history) * 40 }
                            runColor = color
                            run = 1
                        }
                    }
                    result += terminateAndCount(runColor, run, &history) * 40
                }
            }
            for y in 0..<(size - 1) {
                for x in 0..<(size - 1) {
                    let color = self[x, y]
                    if color == self[x + 1, y] && color == self[x, y + 1] && color == self[x + 1, y + 1] { result += 3 }
                }
            }
            let dark = modules.reduce(0) { $0 + ($1 ? 1 : 0) }
            let total = size * size
            let k = (abs(dark * 20 - total * 10) + total - 1) / total - 1
            result += k * 10
            return result
        }

        func countFinderPatterns(_ history: [Int]) -> Int {
            let n = history[1]
            let core = n > 0 && history[2] == n && history[3] == n * 3 && history[4] == n && history[5] == n
            return (core && history[0] >= n * 4 && history[6] >= n ? 1 : 0)
                + (core && history[6] >= n * 4 && history[0] >= n ? 1 : 0)
        }

        func terminateAndCount(_ color: Bool, _ run: Int, _ history: inout [Int]) -> Int {
            var run = run
            if color {
                addHistory(run, &history)
                run = 0
            }
            run += size
            addHistory(run, &history)
            return countFinderPatterns(history)
        }

        func addHistory(_ run: Int, _ history: inout [Int]) {
            var run = run
            if history[0] == 0 { run += size }
            history.removeLast()
            history.insert(run, at: 0)
        }
    }

    // MARK: Rendering

    /// Two rows per line with half blocks (▀ ▄ █), dark on light, with a `quietZone` of light modules around.
    /// Works on dark and light terminals alike since it paints the light modules too.
    public func terminalString(quietZone: Int = 2) -> String {
        let total = size + 2 * quietZone
        func light(_ x: Int, _ y: Int) -> Bool { !isDark(x: x - quietZone, y: y - quietZone) }
        var lines: [String] = []
        var y = 0
        while y < total {
            var line = ""
            for x in 0..<total {
                let top = light(x, y)
                let bottom = y + 1 < total ? light(x, y + 1) : false
                switch (top, bottom) {
                case (true, true): line += "█"
                case (true, false): line += "▀"
                case (false, true): line += "▄"
                case (false, false): line += " "
                }
            }
            lines.append(line)
            y += 2
        }
        return lines.joined(separator: "\n")
    }

    /// A standalone SVG document, one path, `scale` px per module, 4 modules of quiet zone.
    public func svg(scale: Int = 8, quietZone: Int = 4) -> String {
        let total = (size + 2 * quietZone) * scale
        var path = ""
        for y in 0..<size {
            for x in 0..<size where isDark(x: x, y: y) {
                path += "M\(x + quietZone),\(y + quietZone)h1v1h-1z"
            }
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="\(total)" height="\(total)" viewBox="0 0 \(size + 2 * quietZone) \(size + 2 * quietZone)" shape-rendering="crispEdges">
            <rect width="100%" height="100%" fill="#ffffff"/>
            <path d="\(path)" fill="#000000"/>
            </svg>

            """
    }

    /// A grayscale PNG, `scale` px per module, 4 modules of quiet zone. Uncompressed deflate (stored blocks): no
    /// zlib needed, and a QR image is small anyway.
    public func png(scale: Int = 8, quietZone: Int = 4) -> [UInt8] {
        let side = (size + 2 * quietZone) * scale
        var raw: [UInt8] = []
        raw.reserveCapacity((side + 1) * side)
        for py in 0..<side {
            raw.append(0)   // filter: none
            let y = py / scale - quietZone
            for px in 0..<side {
                raw.append(isDark(x: px / scale - quietZone, y: y) ? 0 : 255)
            }
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, raw.count - offset)
            let final: UInt8 = offset + length == raw.count ? 1 : 0
            zlib += [final, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            zlib += raw[offset..<(offset + length)]
            offset += length
        } while offset < raw.count
        zlib += PNG.bigEndian(PNG.adler32(raw))
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += PNG.chunk("IHDR", PNG.bigEndian(UInt32(side)) + PNG.bigEndian(UInt32(side)) + [8, 0, 0, 0, 0])
        png += PNG.chunk("IDAT", zlib)
        png += PNG.chunk("IEND", [])
        return png
    }

    enum PNG {
        static func bigEndian(_ value: UInt32) -> [UInt8] {
            [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
        }

        static func adler32(_ data: [UInt8]) -> UInt32 {
            var a: UInt32 = 1, b: UInt32 = 0
            for byte in data {
                a = (a + UInt32(byte)) % 65_521
                b = (b + a) % 65_521
            }
            return b << 16 | a
        }

        static let crcTable: [UInt32] = (0..<256).map { n in
            var c = UInt32(n)
            for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            return c
        }

        static func crc32(_ data: [UInt8]) -> UInt32 {
            var c: UInt32 = 0xFFFF_FFFF
            for byte in data { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
            return c ^ 0xFFFF_FFFF
        }

        static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + data
            return bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
        }
    }
}
