/// A port a server binds once, awaited by whoever needs it (port 0 picks a free one).
actor BoundPort {
    private var port: Int?
    private var waiters: [CheckedContinuation<Int, Never>] = []

    func set(_ value: Int) {
        port = value
        for waiter in waiters { waiter.resume(returning: value) }
        waiters.removeAll()
    }

    var value: Int {
        get async {
            if let port { return port }
            return await withCheckedContinuation { waiters.append($0) }
        }
    }
}
