/// Publisher confirms in flight on one channel: a pure state machine, no I/O.
///
/// Delivery tags grow by one per publish, so entries stay sorted by tag and a
/// `multiple` ack settles a prefix. A `basic.return` arrives before the ack of the same
/// message; it is remembered and turns that ack into ``PublishError/returned``.
struct ConfirmTracker<Waiter> {
    private struct Entry {
        var tag: UInt64
        var waiter: Waiter?
        var returned: (code: Int, text: String)?
    }

    private var entries: [Entry] = []
    private var head = 0
    private(set) var pending = 0

    /// Records a publish that awaits its confirm.
    mutating func add(tag: UInt64, waiter: Waiter) {
        precondition(entries.last.map { $0.tag < tag } ?? true, "delivery tags must grow")
        entries.append(Entry(tag: tag, waiter: waiter))
        pending += 1
    }

    /// Remembers that the broker returned the message published with `tag`.
    mutating func markReturned(tag: UInt64, code: Int, text: String) {
        if let index = index(of: tag) { entries[index].returned = (code, text) }
    }

    /// Settles confirms for a `basic.ack`.
    mutating func ack(tag: UInt64, multiple: Bool) -> [(Waiter, Result<Void, PublishError>)] {
        settle(tag: tag, multiple: multiple) { entry in
            if let returned = entry.returned { return .failure(.returned(code: returned.code, text: returned.text)) }
            return .success(())
        }
    }

    /// Settles confirms for a `basic.nack`.
    mutating func nack(tag: UInt64, multiple: Bool) -> [(Waiter, Result<Void, PublishError>)] {
        settle(tag: tag, multiple: multiple) { _ in .failure(.nacked) }
    }

    /// Gives every waiter up, for a dropped connection or channel.
    mutating func failAll(_ error: PublishError) -> [(Waiter, PublishError)] {
        var failed: [(Waiter, PublishError)] = []
        failed.reserveCapacity(pending)
        for index in head..<entries.count {
            if let waiter = entries[index].waiter { failed.append((waiter, error)) }
        }
        entries.removeAll(keepingCapacity: true)
        head = 0
        pending = 0
        return failed
    }

    private mutating func settle(
        tag: UInt64, multiple: Bool, outcome: (Entry) -> Result<Void, PublishError>
    ) -> [(Waiter, Result<Void, PublishError>)] {
        var settled: [(Waiter, Result<Void, PublishError>)] = []
        if multiple {
            var index = head
            while index < entries.count, entries[index].tag <= tag {
                if let waiter = entries[index].waiter {
                    settled.append((waiter, outcome(entries[index])))
                    entries[index].waiter = nil
                }
                index += 1
            }
        } else if let index = index(of: tag), let waiter = entries[index].waiter {
            settled.append((waiter, outcome(entries[index])))
            entries[index].waiter = nil
        }
        pending -= settled.count
        compact()
        return settled
    }

    /// Drops settled entries from the front; keeps the array from growing without bound.
    private mutating func compact() {
        while head < entries.count, entries[head].waiter == nil { head += 1 }
        if head == entries.count {
            entries.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 4096, head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
    }

    private func index(of tag: UInt64) -> Int? {
        var low = head
        var high = entries.count - 1
        while low <= high {
            let mid = (low + high) / 2
            if entries[mid].tag == tag { return mid }
            if entries[mid].tag < tag { low = mid + 1 } else { high = mid - 1 }
        }
        return nil
    }
}
