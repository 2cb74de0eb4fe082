/// The source-priority merge for cumulative types, as a single sweep over samples sorted by start.
///
/// The bucket's time is cut at every sample boundary; in each elementary interval the highest-priority source that has
/// a sample covering it contributes `value × overlap ÷ duration` for each of its covering samples; lower sources fill
/// the gaps of higher ones. Zero-duration samples count as they are, except exact duplicates. Memory is bounded by
/// the number of samples active at one instant, whatever the length of history.
struct CumulativeMerge {
    let grid: BucketGrid
    private(set) var sums: [Double]
    private(set) var counts: [Int]
    /// Bit r set: rank r contributed to the bucket (ranks ≥ 63 share bit 63).
    private(set) var contributors: [UInt64]
    /// When tracked: what each rank contributed after the merge, `bucket × rankCount + rank`; per bucket, the
    /// ranks' parts add up to the bucket's sum. Empty when not tracked (the plain path pays one branch per step).
    private(set) var contributions: [Double]
    let rankCount: Int
    private var rate: [Double]
    private var active: [Int32]
    private var heap = EndHeap()
    private var t: Double
    private var bucket: Int
    private var lastZeroStart = -Double.infinity
    private var zeroValuesAtStart: [Double] = []

    init(grid: BucketGrid, rankCount: Int, tracksContributions: Bool = false) {
        self.grid = grid
        self.rankCount = max(1, rankCount)
        sums = Array(repeating: 0, count: grid.count)
        counts = Array(repeating: 0, count: grid.count)
        contributors = Array(repeating: 0, count: grid.count)
        contributions = tracksContributions ? Array(repeating: 0, count: grid.count * max(1, rankCount)) : []
        rate = Array(repeating: 0, count: max(1, rankCount))
        active = Array(repeating: 0, count: max(1, rankCount))
        t = grid.rangeStart
        bucket = grid.bucket(containing: grid.rangeStart) ?? grid.count
    }

    /// Adds a sample; samples must come in ascending start order.
    mutating func add(start: Double, end: Double, value: Double, rank: Int) {
        guard value.isFinite, end > grid.rangeStart || (end == start && start >= grid.rangeStart),
              start < grid.rangeEnd else { return }
        let rank = min(rank, rate.count - 1)
        if end <= start {
            addInstant(at: start, value: value, rank: rank)
            return
        }
        advance(to: min(max(start, t), grid.rangeEnd))
        countOverlap(start: start, end: end)
        let r = value / (end - start)
        rate[rank] += r
        active[rank] += 1
        heap.push(ActiveSample(end: end, rank: Int32(rank), rate: r, value: 0, layer: 0))
    }

    /// Sweeps to the end of the range. Call once, after the last sample.
    mutating func finish() {
        advance(to: grid.rangeEnd)
    }

    private mutating func addInstant(at start: Double, value: Double, rank: Int) {
        guard start >= grid.rangeStart, let b = grid.bucket(containing: start) else { return }
        if start == lastZeroStart {
            if zeroValuesAtStart.contains(value) { return }  // an exact duplicate from another source
        } else {
            lastZeroStart = start
            zeroValuesAtStart.removeAll(keepingCapacity: true)
        }
        zeroValuesAtStart.append(value)
        sums[b] += value
        if !contributions.isEmpty { contributions[b * rankCount + rank] += value }
        counts[b] += 1
        contributors[b] |= 1 << UInt64(min(rank, 63))
    }

    private mutating func countOverlap(start: Double, end: Double) {
        var b = grid.bucket(containing: max(start, grid.rangeStart)) ?? grid.count
        while b < grid.count, grid.edges[b] < min(end, grid.rangeEnd) {
            counts[b] += 1
            b += 1
        }
    }

    private mutating func advance(to target: Double) {
        while t < target {
            var next = target
            if let top = heap.first, top.end < next { next = top.end }
            if bucket + 1 < grid.edges.count, grid.edges[bucket + 1] < next { next = grid.edges[bucket + 1] }
            if next > t, bucket < grid.count, let top = topRank() {
                let part = rate[top] * (next - t)
                sums[bucket] += part
                if !contributions.isEmpty { contributions[bucket * rankCount + top] += part }
                contributors[bucket] |= 1 << UInt64(min(top, 63))
            }
            t = next
            while let top = heap.first, top.end <= t {
                _ = heap.pop()
                let r = Int(top.rank)
                active[r] -= 1
                rate[r] = active[r] == 0 ? 0 : rate[r] - top.rate
            }
            while bucket + 1 < grid.edges.count, grid.edges[bucket + 1] <= t { bucket += 1 }
        }
    }

    @inline(__always)
    private func topRank() -> Int? {
        for r in 0..<active.count where active[r] > 0 { return r }
        return nil
    }
}

/// Plain proportional sums, no merge: each sample contributes `value × overlap ÷ duration` to each bucket it
/// overlaps. Used per source (`separateBySource`) and to show what summing every source would give.
struct ProportionalSum {
    let grid: BucketGrid
    private(set) var sums: [Double]
    private(set) var counts: [Int]

    init(grid: BucketGrid) {
        self.grid = grid
        sums = Array(repeating: 0, count: grid.count)
        counts = Array(repeating: 0, count: grid.count)
    }

    mutating func add(start: Double, end: Double, value: Double) {
        guard value.isFinite else { return }
        if end <= start {
            guard start >= grid.rangeStart, start < grid.rangeEnd, let b = grid.bucket(containing: start) else { return }
            sums[b] += value
            counts[b] += 1
            return
        }
        let lo = max(start, grid.rangeStart), hi = min(end, grid.rangeEnd)
        guard hi > lo, var b = grid.bucket(containing: lo) else { return }
        let rate = value / (end - start)
        while b < grid.count, grid.edges[b] < hi {
            let overlap = min(hi, grid.edges[b + 1]) - max(lo, grid.edges[b])
            if overlap > 0 { sums[b] += rate * overlap }
            counts[b] += 1
            b += 1
        }
    }
}

/// Average, minimum, maximum and most recent value per bucket for discrete types. A sample belongs to the bucket
/// that contains its start.
struct DiscreteAccumulator {
    let grid: BucketGrid
    private(set) var counts: [Int]
    private(set) var sums: [Double]
    private(set) var mins: [Double]
    private(set) var maxs: [Double]
    private(set) var recentValue: [Double]
    private(set) var recentStart: [Double]
    private(set) var recentEnd: [Double]
    private(set) var contributors: [UInt64]

    init(grid: BucketGrid) {
        self.grid = grid
        let n = grid.count
        counts = Array(repeating: 0, count: n)
        sums = Array(repeating: 0, count: n)
        mins = Array(repeating: .infinity, count: n)
        maxs = Array(repeating: -.infinity, count: n)
        recentValue = Array(repeating: .nan, count: n)
        recentStart = Array(repeating: -.infinity, count: n)
        recentEnd = Array(repeating: -.infinity, count: n)
        contributors = Array(repeating: 0, count: n)
    }

    mutating func add(start: Double, end: Double, value: Double, rank: Int) {
        guard value.isFinite, start >= grid.rangeStart, start < grid.rangeEnd,
              let b = grid.bucket(containing: start) else { return }
        counts[b] += 1
        sums[b] += value
        if value < mins[b] { mins[b] = value }
        if value > maxs[b] { maxs[b] = value }
        if start > recentStart[b] || (start == recentStart[b] && end >= recentEnd[b]) {
            recentStart[b] = start
            recentEnd[b] = end
            recentValue[b] = value
        }
        contributors[b] |= 1 << UInt64(min(rank, 63))
    }
}
