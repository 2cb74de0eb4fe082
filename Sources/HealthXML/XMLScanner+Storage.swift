// The memory owned by an `XMLScanner`.

struct _OpenElement {
    var nameStart: Int
    var nameLength: Int
    var offset: Int
    var line: Int
}

/// The scanner's buffers: carried-over tag bytes, the reusable attribute table and the open-element stack.
/// Copied on write by `XMLScanner`, so the scanner has value semantics.
final class _ScannerStorage: @unchecked Sendable {
    var pending: UnsafeMutablePointer<UInt8>
    var pendingCount = 0
    var pendingCapacity: Int
    var spans: UnsafeMutablePointer<_AttributeSpan>
    var spanCapacity: Int
    var names: UnsafeMutablePointer<UInt8>
    var namesCount = 0
    var namesCapacity: Int
    var open: UnsafeMutablePointer<_OpenElement>
    var openCount = 0
    var openCapacity: Int

    static let initialPendingCapacity = 4096

    init() {
        self.pendingCapacity = Self.initialPendingCapacity
        self.pending = .allocate(capacity: self.pendingCapacity)
        self.spanCapacity = 32
        self.spans = .allocate(capacity: self.spanCapacity)
        self.namesCapacity = 256
        self.names = .allocate(capacity: self.namesCapacity)
        self.openCapacity = 16
        self.open = .allocate(capacity: self.openCapacity)
    }

    deinit {
        self.pending.deallocate()
        self.spans.deallocate()
        self.names.deallocate()
        self.open.deallocate()
    }

    func copy() -> _ScannerStorage {
        let copy = _ScannerStorage()
        copy.appendPending(self.pending, self.pendingCount)
        for index in 0..<self.openCount {
            copy.pushOpen(
                UnsafeRawBufferPointer(self.openName(index).bytes),
                offset: self.open[index].offset,
                line: self.open[index].line
            )
        }
        return copy
    }

    func removeAll() {
        self.pendingCount = 0
        self.namesCount = 0
        self.openCount = 0
        self.shrinkPendingIfLarge()
    }

    func appendPending(_ bytes: UnsafePointer<UInt8>, _ count: Int) {
        guard count > 0 else { return }
        let needed = self.pendingCount + count
        if needed > self.pendingCapacity {
            let capacity = max(needed, self.pendingCapacity * 2)
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            grown.update(from: self.pending, count: self.pendingCount)
            self.pending.deallocate()
            self.pending = grown
            self.pendingCapacity = capacity
        }
        (self.pending + self.pendingCount).update(from: bytes, count: count)
        self.pendingCount = needed
    }

    /// Gives back the memory of an exceptionally large carried-over tag.
    func shrinkPendingIfLarge() {
        guard self.pendingCount == 0, self.pendingCapacity > 1 << 20 else { return }
        self.pending.deallocate()
        self.pendingCapacity = Self.initialPendingCapacity
        self.pending = .allocate(capacity: self.pendingCapacity)
    }

    func growSpans() {
        let capacity = self.spanCapacity * 2
        let grown = UnsafeMutablePointer<_AttributeSpan>.allocate(capacity: capacity)
        self.spans.deallocate()
        self.spans = grown
        self.spanCapacity = capacity
    }

    func pushOpen(_ name: UnsafeRawBufferPointer, offset: Int, line: Int) {
        if self.openCount == self.openCapacity {
            let capacity = self.openCapacity * 2
            let grown = UnsafeMutablePointer<_OpenElement>.allocate(capacity: capacity)
            grown.moveInitialize(from: self.open, count: self.openCount)
            self.open.deallocate()
            self.open = grown
            self.openCapacity = capacity
        }
        let needed = self.namesCount + name.count
        if needed > self.namesCapacity {
            let capacity = max(needed, self.namesCapacity * 2)
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            grown.update(from: self.names, count: self.namesCount)
            self.names.deallocate()
            self.names = grown
            self.namesCapacity = capacity
        }
        if let source = name.baseAddress {
            UnsafeMutableRawPointer(self.names + self.namesCount).copyMemory(from: source, byteCount: name.count)
        }
        (self.open + self.openCount).initialize(
            to: _OpenElement(nameStart: self.namesCount, nameLength: name.count, offset: offset, line: line)
        )
        self.namesCount = needed
        self.openCount += 1
    }

    func popOpen() {
        guard self.openCount > 0 else { return }
        self.openCount -= 1
        self.namesCount = self.open[self.openCount].nameStart
    }

    func openName(_ index: Int) -> XMLName {
        let element = self.open[index]
        return XMLName(bytes: UnsafeRawBufferPointer(start: self.names + element.nameStart, count: element.nameLength))
    }

    /// `<Name…` for the carried-over tag, for messages.
    func pendingTagDescription() -> String {
        var start = 1
        if self.pendingCount > 1 && self.pending[1] == UInt8(ascii: "/") { start = 2 }
        var end = start
        while end < self.pendingCount && end - start < 64 && !_isNameTerminator(self.pending[end]) { end += 1 }
        let name = String(decoding: UnsafeBufferPointer(start: self.pending + start, count: max(0, end - start)), as: UTF8.self)
        return (start == 2 ? "</" : "<") + name + "…"
    }
}
