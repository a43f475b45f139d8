import Glibc

extension timeval {
    /// libevent takes every timeout as a timeval; ipdirect keeps them in milliseconds.
    init(millis: Int) {
        self.init(tv_sec: millis / 1000, tv_usec: millis % 1000 * 1000)
    }
}
