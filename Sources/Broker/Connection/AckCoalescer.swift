/// Turns many single acks on one channel into as few frames as possible: a pure state
/// machine, no I/O.
///
/// It knows every delivery tag handed out and not yet settled. Single acks wait here
/// until the owner thread has run the commands it has; then the longest run of
/// outstanding tags, from the oldest, that are all acked goes out as one `multiple` ack,
/// and the rest one by one. Any other settlement on the channel flushes first, so that a
/// `multiple` from the caller never covers a tag this still holds.
struct AckCoalescer {
    enum Frame: Equatable {
        case ack(tag: UInt64, multiple: Bool)
    }

    /// Delivered and unsettled, ascending (tags grow per channel).
    private var outstanding: [UInt64] = []
    private var head = 0
    private var pending: [UInt64] = []

    var hasPending: Bool { !pending.isEmpty }

    mutating func delivered(_ tag: UInt64) {
        outstanding.append(tag)
    }

    mutating func ack(_ tag: UInt64) {
        pending.append(tag)
    }

    /// Records a settlement sent as it is (nack, reject, or a caller's multiple ack).
    mutating func settledDirectly(_ tag: UInt64, multiple: Bool) {
        if multiple {
            while head < outstanding.count, outstanding[head] <= tag { head += 1 }
        } else {
            remove(tag)
        }
        compact()
    }

    /// The frames that settle every pending ack.
    mutating func flush() -> [Frame] {
        guard !pending.isEmpty else { return [] }
        pending.sort()
        var frames: [Frame] = []
        var index = 0
        while index < pending.count, head + index < outstanding.count, outstanding[head + index] == pending[index] {
            index += 1
        }
        if index > 0 {
            frames.append(.ack(tag: pending[index - 1], multiple: index > 1))
            head += index
        }
        for tag in pending[index...] {
            frames.append(.ack(tag: tag, multiple: false))
            remove(tag)
        }
        pending.removeAll(keepingCapacity: true)
        compact()
        return frames
    }

    private mutating func remove(_ tag: UInt64) {
        var low = head
        var high = outstanding.count - 1
        while low <= high {
            let mid = (low + high) / 2
            if outstanding[mid] == tag {
                outstanding.remove(at: mid)
                return
            }
            if outstanding[mid] < tag { low = mid + 1 } else { high = mid - 1 }
        }
    }

    private mutating func compact() {
        if head == outstanding.count {
            outstanding.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 1024, head * 2 > outstanding.count {
            outstanding.removeFirst(head)
            head = 0
        }
    }
}
