/// Time per category value, merged across sources by priority, as one sweep over samples sorted by start.
///
/// Samples are grouped in layers that are merged independently — for sleep analysis, "in bed" is one layer and the
/// sleep stages (asleep, core, deep, REM, awake) another, so that a phone's in-bed interval and a watch's stages are
/// both kept but two devices' stages are never added together. In each elementary interval and layer, the
/// highest-priority source covering it contributes the interval's length to each category value it reports there.
struct DurationMerge {
    let grid: BucketGrid
    /// Seconds per bucket per category value.
    private(set) var durations: [[Int32: Double]]
    private(set) var counts: [Int]
    private(set) var contributors: [UInt64]
    private(set) var firstStart: [Double]
    private(set) var lastEnd: [Double]
    /// Active samples per (layer, rank, value).
    private var active: [Key: Int32] = [:]
    /// Active samples per (layer, rank).
    private var activeByRank: [Key: Int32] = [:]
    private var heap = EndHeap()
    private var t: Double
    private var bucket: Int
    private let layerCount: Int
    private let rankCount: Int
    /// Sleep analysis: value 0 (in bed) is its own layer.
    let sleepLayers: Bool

    struct Key: Hashable {
        var layer: Int32
        var rank: Int32
        var value: Int32
    }

    init(grid: BucketGrid, rankCount: Int, layerCount: Int, sleepLayers: Bool = false) {
        self.sleepLayers = sleepLayers
        self.grid = grid
        durations = Array(repeating: [:], count: grid.count)
        counts = Array(repeating: 0, count: grid.count)
        contributors = Array(repeating: 0, count: grid.count)
        firstStart = Array(repeating: .infinity, count: grid.count)
        lastEnd = Array(repeating: -.infinity, count: grid.count)
        t = grid.rangeStart
        bucket = grid.bucket(containing: grid.rangeStart) ?? grid.count
        self.layerCount = max(1, layerCount)
        self.rankCount = max(1, rankCount)
    }

    mutating func add(start: Double, end: Double, value: Int32, layer: Int32, rank: Int) {
        guard end > start, end > grid.rangeStart, start < grid.rangeEnd else { return }
        advance(to: min(max(start, t), grid.rangeEnd))
        let rank = Int32(min(rank, rankCount - 1))
        // Count the sample and its clipped span in every bucket it overlaps.
        let lo = max(start, grid.rangeStart), hi = min(end, grid.rangeEnd)
        if var b = grid.bucket(containing: lo) {
            while b < grid.count, grid.edges[b] < hi {
                counts[b] += 1
                firstStart[b] = min(firstStart[b], max(lo, grid.edges[b]))
                lastEnd[b] = max(lastEnd[b], min(hi, grid.edges[b + 1]))
                b += 1
            }
        }
        active[Key(layer: layer, rank: rank, value: value), default: 0] += 1
        activeByRank[Key(layer: layer, rank: rank, value: 0), default: 0] += 1
        heap.push(ActiveSample(end: end, rank: rank, rate: 0, value: value, layer: layer))
    }

    mutating func finish() {
        advance(to: grid.rangeEnd)
    }

    private mutating func advance(to target: Double) {
        while t < target {
            var next = target
            if let top = heap.first, top.end < next { next = top.end }
            if bucket + 1 < grid.edges.count, grid.edges[bucket + 1] < next { next = grid.edges[bucket + 1] }
            if next > t, bucket < grid.count, !heap.isEmpty {
                for layer in 0..<Int32(layerCount) {
                    guard let top = topRank(layer: layer) else { continue }
                    contributors[bucket] |= 1 << UInt64(min(Int(top), 63))
                    for (key, n) in active where n > 0 && key.layer == layer && key.rank == top {
                        durations[bucket][key.value, default: 0] += next - t
                    }
                }
            }
            t = next
            while let top = heap.first, top.end <= t {
                _ = heap.pop()
                active[Key(layer: top.layer, rank: top.rank, value: top.value), default: 0] -= 1
                activeByRank[Key(layer: top.layer, rank: top.rank, value: 0), default: 0] -= 1
            }
            while bucket + 1 < grid.edges.count, grid.edges[bucket + 1] <= t { bucket += 1 }
        }
    }

    private func topRank(layer: Int32) -> Int32? {
        for rank in 0..<Int32(rankCount) where (activeByRank[Key(layer: layer, rank: rank, value: 0)] ?? 0) > 0 {
            return rank
        }
        return nil
    }
}
