/* The one C boundary of ipdirect: libevent, OpenSSL, c-ares, nghttp2 and libcrypt headers, plus
 * one-line shims for what Swift cannot call (function-like macros, variadics). */
#ifndef IPDIRECT_CEVENT_H
#define IPDIRECT_CEVENT_H

/* Must come first: libevent's event-config.h defines _GNU_SOURCE, which would
 * otherwise give this module a different glibc fd_set than the Swift overlay. */
#include <features.h>

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/ioctl.h>
#include <sys/epoll.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <signal.h>
#include <unistd.h>
#include <errno.h>
#include <stdlib.h>

#include <event2/event.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/listener.h>
#include <event2/dns.h>
#include <event2/util.h>
#include <event2/thread.h>

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <ares.h>
#include <nghttp2/nghttp2.h>
/* libxcrypt's crypt(3), for the proxy's password file (bcrypt, SHA-crypt, yescrypt). */
#include <crypt.h>

/* accept4(2) is declared only under _GNU_SOURCE, which must not be defined before <features.h> here. */
int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);
static inline int ipd_accept_nonblocking(int fd, struct sockaddr *address, socklen_t *length) {
    return accept4(fd, address, length, SOCK_NONBLOCK | SOCK_CLOEXEC);
}
/* prctl(2) is variadic. PR_SET_NAME names the calling thread (15 bytes are kept). */
#include <sys/prctl.h>
static inline int ipd_set_thread_name(const char *name) { return prctl(PR_SET_NAME, name, 0, 0, 0); }
/* recvmmsg(2) and sendmmsg(2) and their struct mmsghdr are declared only under _GNU_SOURCE as well: the
 * same layout under another name, and the system calls themselves. */
#include <sys/syscall.h>
struct ipd_mmsghdr {
    struct msghdr msg_hdr;
    unsigned int msg_len;
};
static inline int ipd_recvmmsg(int fd, struct ipd_mmsghdr *messages, unsigned int count, int flags) {
    return (int)syscall(SYS_recvmmsg, fd, messages, count, flags, NULL);
}
static inline int ipd_sendmmsg(int fd, struct ipd_mmsghdr *messages, unsigned int count, int flags) {
    return (int)syscall(SYS_sendmmsg, fd, messages, count, flags);
}
static inline long ipd_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}
static inline int ipd_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}
static inline uint64_t ipd_SSL_CTX_set_options(SSL_CTX *ctx, uint64_t options) {
    return SSL_CTX_set_options(ctx, options);
}
static inline uint64_t ipd_SSL_OP_IGNORE_UNEXPECTED_EOF(void) { return SSL_OP_IGNORE_UNEXPECTED_EOF; }
static inline uint64_t ipd_SSL_OP_NO_COMPRESSION(void) { return SSL_OP_NO_COMPRESSION; }
static inline long ipd_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_session_cache_mode(ctx, mode);
}
static inline void ipd_OPENSSL_free(void *p) { OPENSSL_free(p); }
/* Certificate chains and subjectAltName lists are OpenSSL stacks, reached only through sk_* macros. */
static inline int ipd_sk_X509_num(const STACK_OF(X509) *chain) { return sk_X509_num(chain); }
static inline X509 *ipd_sk_X509_value(const STACK_OF(X509) *chain, int index) { return sk_X509_value(chain, index); }
static inline int ipd_sk_GENERAL_NAME_num(const GENERAL_NAMES *names) { return sk_GENERAL_NAME_num(names); }
static inline GENERAL_NAME *ipd_sk_GENERAL_NAME_value(const GENERAL_NAMES *names, int index) { return sk_GENERAL_NAME_value(names, index); }

/* crypt_rn's scratch area is a struct of over 30 KB of arrays, which Swift would import as tuples:
 * callers allocate this many bytes instead and never see the struct. */
static inline int ipd_crypt_data_size(void) { return (int)sizeof(struct crypt_data); }

/* splice(2) is declared only under _GNU_SOURCE, which this header must not define (see above). */
extern ssize_t splice(int fd_in, long long *off_in, int fd_out, long long *off_out, size_t len, unsigned int flags);
static inline ssize_t ipd_splice(int from, int to, size_t length, unsigned int flags) {
    return splice(from, NULL, to, NULL, length, flags);
}

/* pipe2(2) likewise; it makes both ends non-blocking and close-on-exec in one call. */
extern int pipe2(int fds[2], int flags);
static inline int ipd_pipe2(int fds[2], int flags) { return pipe2(fds, flags); }

/* The number of bytes in `buffer`, read where libevent keeps it: evbuffer_get_length is a call into the library
 * for one load, and the request path asks several times per request. libevent 2.1's struct evbuffer
 * (evbuffer-internal.h) begins with three chain pointers, then total_len, two counters and its lock; a buffer
 * with a lock (made thread-safe) is asked through the library. ipd_evbuffer_layout_matches checks the layout
 * once at start-up. */
struct ipd_evbuffer_head {
    void *first, *last, *last_with_datap;
    size_t total_len, n_add_for_cb, n_del_for_cb;
    void *lock;
};
static inline size_t ipd_evbuffer_length(const struct evbuffer *buffer) {
    const struct ipd_evbuffer_head *head = (const struct ipd_evbuffer_head *)buffer;
    return head->lock == NULL ? head->total_len : evbuffer_get_length(buffer);
}
static inline int ipd_evbuffer_layout_matches(void) {
    struct evbuffer *buffer = evbuffer_new();
    if (buffer == NULL) return 0;
    const struct ipd_evbuffer_head *head = (const struct ipd_evbuffer_head *)buffer;
    int matches = head->lock == NULL && head->total_len == 0 && evbuffer_add(buffer, "layout", 6) == 0
        && head->total_len == 6 && evbuffer_get_length(buffer) == 6 && head->first != NULL && head->first == head->last;
    evbuffer_free(buffer);
    return matches;
}

/* A plain bufferevent's read and write events. libevent 2.1's struct bufferevent (event2/bufferevent_struct.h)
 * begins with two pointers and then those two events. The header stays out: it would make struct event
 * complete, and Swift would then import every struct event pointer as a typed one. So each event found there
 * is checked to be the bufferevent's own event on `fd` before it is touched: NULL when it is not. */
static inline struct event *ipd_bufferevent_write_event(struct bufferevent *bev, evutil_socket_t fd) {
    struct event *write_event = (struct event *)((char *)((void **)bev + 2) + event_get_struct_event_size());
    if (event_get_callback_arg(write_event) != bev || event_get_base(write_event) != bufferevent_get_base(bev)
        || event_get_fd(write_event) != fd || event_get_events(write_event) != (EV_WRITE | EV_PERSIST | EV_FINALIZE)) return NULL;
    return write_event;
}
static inline struct event *ipd_bufferevent_read_event(struct bufferevent *bev, evutil_socket_t fd) {
    struct event *read_event = (struct event *)((void **)bev + 2);
    if (event_get_callback_arg(read_event) != bev || event_get_base(read_event) != bufferevent_get_base(bev)
        || event_get_fd(read_event) != fd || event_get_events(read_event) != (EV_READ | EV_PERSIST | EV_FINALIZE)) return NULL;
    return read_event;
}

/* Reading pauses once the input holds `high` bytes and resumes when it falls below. libevent's own read
 * watermark does the same, but its input callback re-enables reading (an event_add) on every change to the
 * input, paused or not: several times per request. This one acts only when the input crosses the mark.
 * bufferevent_suspend_read_ and bufferevent_unsuspend_read_ are exported by libevent 2.1 (bufferevent-internal.h)
 * and are what its watermark uses, with the same reason flag (BEV_SUSPEND_WM, 1); libevent's own read
 * watermark must then stay unset. A read may pass the mark by at most its own size.
 *
 * A plain socket read by ipd's reader (ipd_bufferevent_set_reader) has its limit checked by the reader after
 * every read, and watches its input for drains (an evbuffer callback) only while reading is paused: a callback
 * on the input costs libevent a pass through its callback list at every change of the buffer, four or five per
 * request. Any other bufferevent (TLS, read by libevent) has its input watched all the time. */
void bufferevent_suspend_read_(struct bufferevent *bufev, ev_uint16_t what);
void bufferevent_unsuspend_read_(struct bufferevent *bufev, ev_uint16_t what);
struct ipd_read_limit {
    /* First: ipd's reader is given the limit as its read event's argument and finds the bufferevent here. */
    struct bufferevent *bufferevent;
    /* The input's callback: while paused, or always when not `checked_by_reader`; NULL otherwise. */
    struct evbuffer_cb_entry *entry;
    size_t high;
    int paused;
    int checked_by_reader;
};
static void ipd_read_limit_input_changed(struct evbuffer *input, const struct evbuffer_cb_info *info, void *context);
static inline void ipd_read_limit_apply(struct ipd_read_limit *limit, size_t length) {
    int over = limit->high != 0 && length >= limit->high;
    if (over == limit->paused) return;
    if (limit->checked_by_reader) {
        struct evbuffer *input = bufferevent_get_input(limit->bufferevent);
        if (over) {
            limit->entry = evbuffer_add_cb(input, ipd_read_limit_input_changed, limit);
            /* Without a watch, nothing would resume reading: out of memory, the limit is not applied. */
            if (limit->entry == NULL) return;
        } else {
            /* Safe from within the callback itself: libevent has taken the next entry before calling it. */
            evbuffer_remove_cb_entry(input, limit->entry);
            limit->entry = NULL;
        }
    }
    limit->paused = over;
    if (over) bufferevent_suspend_read_(limit->bufferevent, 1);
    else bufferevent_unsuspend_read_(limit->bufferevent, 1);
}
static void ipd_read_limit_input_changed(struct evbuffer *input, const struct evbuffer_cb_info *info, void *context) {
    if (info->n_added == 0 && info->n_deleted == 0) return;
    ipd_read_limit_apply((struct ipd_read_limit *)context, ipd_evbuffer_length(input));
}
/* A limit of `high` bytes (0: none) on `bev`'s input, checked against what it holds now; NULL when out of
 * memory. With `checked_by_reader`, ipd_read_limit_after_read must follow every addition to the input. */
static inline struct ipd_read_limit *ipd_read_limit_new(struct bufferevent *bev, size_t high, int checked_by_reader) {
    struct ipd_read_limit *limit = calloc(1, sizeof *limit);
    if (limit == NULL) return NULL;
    limit->bufferevent = bev;
    limit->checked_by_reader = checked_by_reader;
    if (!checked_by_reader) {
        limit->entry = evbuffer_add_cb(bufferevent_get_input(bev), ipd_read_limit_input_changed, limit);
        if (limit->entry == NULL) { free(limit); return NULL; }
    }
    limit->high = high;
    ipd_read_limit_apply(limit, ipd_evbuffer_length(bufferevent_get_input(bev)));
    return limit;
}
static inline void ipd_read_limit_set(struct ipd_read_limit *limit, size_t high) {
    limit->high = high;
    ipd_read_limit_apply(limit, ipd_evbuffer_length(bufferevent_get_input(limit->bufferevent)));
}
/* Bytes were added to the input of a bufferevent whose limit is `checked_by_reader`. */
static inline void ipd_read_limit_after_read(struct ipd_read_limit *limit) {
    if (limit->high == 0 || limit->paused) return;
    ipd_read_limit_apply(limit, ipd_evbuffer_length(bufferevent_get_input(limit->bufferevent)));
}
/* The input's additions are no longer all seen by ipd's reader (it could not be installed again): the input is
 * watched all the time from now on. Returns 0 when out of memory. */
static inline int ipd_read_limit_watch_always(struct ipd_read_limit *limit) {
    if (!limit->checked_by_reader) return 1;
    if (limit->entry == NULL) {
        limit->entry = evbuffer_add_cb(bufferevent_get_input(limit->bufferevent), ipd_read_limit_input_changed, limit);
        if (limit->entry == NULL) return 0;
    }
    limit->checked_by_reader = 0;
    return 1;
}
/* Before the bufferevent is freed: its input may outlive this call (a deferred free) and must not call back. */
static inline void ipd_read_limit_free(struct ipd_read_limit *limit) {
    if (limit->entry != NULL) evbuffer_remove_cb_entry(bufferevent_get_input(limit->bufferevent), limit->entry);
    free(limit);
}

/* Points a plain bufferevent's read event at `routine`, called with `limit` (whose `bufferevent` is `bev`) as
 * its argument: reads then skip libevent 2.1's FIONREAD before every read, and check the read limit themselves,
 * while enable/disable, the read timeout and watermark suspension keep working on the same event. libevent
 * points it back at its own reader whenever it sets the descriptor (bufferevent_setfd, bufferevent_socket_connect);
 * its finalizer expects the bufferevent as the argument, which ipd_bufferevent_free_read_by_ipd puts back.
 * Returns 0, changing nothing, when the read or the write event is not where libevent 2.1 keeps it (above): a
 * bufferevent for which this returned 1 may be detached and reused (below). */
static inline int ipd_bufferevent_set_reader(struct bufferevent *bev, event_callback_fn routine, struct ipd_read_limit *limit) {
    evutil_socket_t fd = bufferevent_getfd(bev);
    struct event *read_event = ipd_bufferevent_read_event(bev, fd);
    if (read_event == NULL || ipd_bufferevent_write_event(bev, fd) == NULL) return 0;
    short reading = bufferevent_get_enabled(bev) & EV_READ;
    if (reading) bufferevent_disable(bev, EV_READ);
    event_assign(read_event, bufferevent_get_base(bev), fd, EV_READ | EV_PERSIST | EV_FINALIZE, routine, limit);
    if (reading) bufferevent_enable(bev, EV_READ);
    return 1;
}

/* The read and write events of a bufferevent whose layout ipd_bufferevent_set_reader has checked. */
static inline struct event *ipd_bufferevent_own_read_event(struct bufferevent *bev) {
    return (struct event *)((void **)bev + 2);
}
static inline struct event *ipd_bufferevent_own_write_event(struct bufferevent *bev) {
    return (struct event *)((char *)ipd_bufferevent_own_read_event(bev) + event_get_struct_event_size());
}

/* Frees a bufferevent read by ipd's reader, with its read event's argument set back to the bufferevent for
 * libevent's finalizer. */
static inline void ipd_bufferevent_free_read_by_ipd(struct bufferevent *bev) {
    struct event *read_event = ipd_bufferevent_own_read_event(bev);
    event_del(read_event);
    event_assign(read_event, event_get_base(read_event), event_get_fd(read_event), EV_READ | EV_PERSIST | EV_FINALIZE,
                 event_get_callback(read_event), bev);
    bufferevent_free(bev);
}

/* Takes a plain socket bufferevent, whose layout ipd_bufferevent_set_reader has checked, off its descriptor,
 * which stays open and is returned: neither event is pending any more and both buffers are empty (the input
 * frozen at its end, the output at its front), writing stays enabled. Its timeouts, watermarks and read and
 * write sizes stay as they are, for ipd_bufferevent_reuse's next connection to keep or change; its events
 * still name the old descriptor, which ipd_bufferevent_reuse replaces, and which ipd_bufferevent_free_detached
 * clears before freeing, so that freeing never closes a descriptor that is no longer the bufferevent's. This
 * saves allocating and finalizing a bufferevent and its two evbuffers per connection. Returns -1, changing
 * nothing, when the bufferevent has no descriptor or has writing disabled (an error, a splice): such a one is
 * freed instead. The caller has cleared the callbacks and knows that no deferred callback is pending: one
 * would run on the bufferevent's next user. */
static inline evutil_socket_t ipd_bufferevent_detach(struct bufferevent *bev) {
    struct event *read_event = ipd_bufferevent_own_read_event(bev);
    evutil_socket_t fd = event_get_fd(read_event);
    if (fd < 0 || !(bufferevent_get_enabled(bev) & EV_WRITE)) return -1;
    /* Disabling reading clears its enabled flag; deleting the write event directly keeps writing enabled. */
    bufferevent_disable(bev, EV_READ);
    struct event *write_event = ipd_bufferevent_own_write_event(bev);
    if (event_pending(write_event, EV_WRITE, NULL)) event_del(write_event);
    struct evbuffer *input = bufferevent_get_input(bev), *output = bufferevent_get_output(bev);
    if (ipd_evbuffer_length(input) > 0) evbuffer_drain(input, ipd_evbuffer_length(input));
    if (ipd_evbuffer_length(output) > 0) {
        evbuffer_unfreeze(output, 1);
        evbuffer_drain(output, ipd_evbuffer_length(output));
        evbuffer_freeze(output, 1);
    }
    return fd;
}

/* Gives a bufferevent emptied by ipd_bufferevent_detach the socket `fd`, read by `reader` with `limit` (see
 * ipd_bufferevent_set_reader); neither event is armed until reading or writing is wanted. */
static inline void ipd_bufferevent_reuse(struct bufferevent *bev, evutil_socket_t fd, event_callback_fn reader,
                                         struct ipd_read_limit *limit) {
    struct event *read_event = ipd_bufferevent_own_read_event(bev);
    struct event *write_event = ipd_bufferevent_own_write_event(bev);
    struct event_base *base = event_get_base(read_event);
    event_assign(read_event, base, fd, EV_READ | EV_PERSIST | EV_FINALIZE, reader, limit);
    event_assign(write_event, base, fd, EV_WRITE | EV_PERSIST | EV_FINALIZE, event_get_callback(write_event), bev);
}

/* Frees a bufferevent left by ipd_bufferevent_detach without closing the descriptor its events still name
 * (setting it to -1 also gives the read event back to libevent, with the bufferevent as its argument). */
static inline void ipd_bufferevent_free_detached(struct bufferevent *bev) {
    bufferevent_setfd(bev, -1);
    bufferevent_free(bev);
}

/* libevent's buffers are chains of 1, 2 or 4 KiB (a chain is sized by powers of two from 1 KiB), and a
 * request allocates and frees two of them, one per read. Each thread keeps the last few chains it freed for
 * its next ones: a malloc and a free from glibc cost several hundred instructions, and a 1 KiB request with
 * small blocks freed before it makes glibc consolidate its fast bins. Blocks are told apart by their usable
 * size, so a block from plain malloc may be freed here, and these functions may be installed at any time. */
#include <malloc.h>
enum { IPD_BLOCK_CLASSES = 3, IPD_BLOCKS_PER_CLASS = 8, IPD_BLOCK_SMALLEST = 1024, IPD_BLOCK_SLACK = 64 };
struct ipd_block_cache {
    void *blocks[IPD_BLOCK_CLASSES][IPD_BLOCKS_PER_CLASS];
    int counts[IPD_BLOCK_CLASSES];
};
static inline struct ipd_block_cache *ipd_block_cache(void) {
    static __thread struct ipd_block_cache cache;
    return &cache;
}
/* The class of a request for exactly `size` bytes, or -1. */
static inline int ipd_block_class_of_request(size_t size) {
    for (int class = 0; class < IPD_BLOCK_CLASSES; class++) {
        if (size == (size_t)IPD_BLOCK_SMALLEST << class) return class;
    }
    return -1;
}
/* The class a block of `usable` bytes can serve without wasting more than the slack, or -1. */
static inline int ipd_block_class_of_block(size_t usable) {
    for (int class = 0; class < IPD_BLOCK_CLASSES; class++) {
        size_t size = (size_t)IPD_BLOCK_SMALLEST << class;
        if (usable >= size && usable < size + IPD_BLOCK_SLACK) return class;
    }
    return -1;
}
static inline void *ipd_block_malloc(size_t size) {
    int class = ipd_block_class_of_request(size);
    struct ipd_block_cache *cache = ipd_block_cache();
    if (class >= 0 && cache->counts[class] > 0) return cache->blocks[class][--cache->counts[class]];
    return malloc(size);
}
static inline void *ipd_block_realloc(void *block, size_t size) { return realloc(block, size); }
static inline void ipd_block_free(void *block) {
    if (block == NULL) return;
    int class = ipd_block_class_of_block(malloc_usable_size(block));
    struct ipd_block_cache *cache = ipd_block_cache();
    if (class >= 0 && cache->counts[class] < IPD_BLOCKS_PER_CLASS) {
        cache->blocks[class][cache->counts[class]++] = block;
        return;
    }
    free(block);
}
/* Blocks this thread keeps for a class now. */
static inline int ipd_block_cache_count(int class) { return ipd_block_cache()->counts[class]; }
/* Gives this thread's kept blocks back to glibc, as a loop thread ends. */
static inline void ipd_block_cache_release(void) {
    struct ipd_block_cache *cache = ipd_block_cache();
    for (int class = 0; class < IPD_BLOCK_CLASSES; class++) {
        while (cache->counts[class] > 0) free(cache->blocks[class][--cache->counts[class]]);
    }
}
static inline void ipd_install_block_cache(void) {
    event_set_mem_functions(ipd_block_malloc, ipd_block_realloc, ipd_block_free);
}

/* Where a compact read puts what passes its small reservation in the input, before it is added there: one
 * buffer per thread (each loop reads on its own thread), because Swift takes a temporary buffer of more than
 * 1 KiB from the heap on Linux, and a fixed-size Swift value is initialised byte by byte on every read. */
enum { IPD_READ_OVERFLOW_BYTES = 3072 };
static inline unsigned char *ipd_read_overflow(void) {
    static __thread unsigned char bytes[IPD_READ_OVERFLOW_BYTES];
    return bytes;
}

/* ioctl(2) is variadic, which Swift cannot call: bytes received on a socket and not yet read. */
static inline int ipd_unread_bytes(int fd) { int count = 0; return ioctl(fd, FIONREAD, &count) == 0 ? count : 0; }

/* An epoll set of its own for parked keep-alive connections. struct epoll_event is packed and holds a union,
 * so Swift sees only the 64-bit user data: watch a socket for readability once, forget it, collect what is
 * ready without waiting. */
static inline int ipd_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }
static inline int ipd_epoll_watch_readable(int set, int fd, uint64_t token) {
    struct epoll_event event = { .events = EPOLLIN, .data.u64 = token };
    return epoll_ctl(set, EPOLL_CTL_ADD, fd, &event);
}
static inline int ipd_epoll_forget(int set, int fd) { return epoll_ctl(set, EPOLL_CTL_DEL, fd, NULL); }
static inline int ipd_epoll_ready_tokens(int set, uint64_t *tokens, int capacity) {
    struct epoll_event events[64];
    int ready = epoll_wait(set, events, capacity < 64 ? capacity : 64, 0);
    for (int i = 0; i < ready; i++) tokens[i] = events[i].data.u64;
    return ready;
}

#endif
