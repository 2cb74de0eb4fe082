/// Bucket edges in seconds since 1970 and the range the statistics are clipped to.
struct BucketGrid: Sendable {
    /// Bucket i is `[edges[i], edges[i + 1])`.
    let edges: [Double]
    let rangeStart: Double
    let rangeEnd: Double

    init(edges: [Double], rangeStart: Double, rangeEnd: Double) {
        self.edges = edges
        self.rangeStart = rangeStart
        self.rangeEnd = rangeEnd
    }

    var count: Int { edges.count - 1 }

    /// The bucket containing `t`, or nil outside the grid.
    @inline(__always)
    func bucket(containing t: Double) -> Int? {
        guard t >= edges[0], let last = edges.last, t < last else { return nil }
        var lo = 0, hi = edges.count - 1  // edges[lo] <= t < edges[hi]
        while hi - lo > 1 {
            let mid = (lo + hi) >> 1
            if edges[mid] <= t { lo = mid } else { hi = mid }
        }
        return lo
    }
}

/// A sample being swept: its end and its rate (value per second).
struct ActiveSample {
    var end: Double
    var rank: Int32
    var rate: Double
    /// Category value, for duration sweeps.
    var value: Int32
    var layer: Int32
}

/// A binary min-heap of active samples ordered by end. Allocation-free after warm-up.
struct EndHeap {
    private(set) var items: [ActiveSample] = []

    var first: ActiveSample? { items.first }
    var isEmpty: Bool { items.isEmpty }

    mutating func push(_ item: ActiveSample) {
        items.append(item)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) >> 1
            if items[parent].end <= items[child].end { break }
            items.swapAt(parent, child)
            child = parent
        }
    }

    mutating func pop() -> ActiveSample? {
        guard let top = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var parent = 0
            let n = items.count
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < n, items[left].end < items[smallest].end { smallest = left }
                if right < n, items[right].end < items[smallest].end { smallest = right }
                if smallest == parent { break }
                items.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return top
    }
}
