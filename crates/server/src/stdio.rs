//! The process's stdin and stdout as async streams, read and written on the runtime's own threads
//! when they are pipes or sockets (how every editor spawns a language server).
//!
//! tokio's `stdin()`/`stdout()` hand every read and every write to the blocking pool: a thread
//! hop each way per message, and on a loaded machine each hop waits for a time slice. Measured from
//! a Node host (`editors/vscode/scripts/bench-roundtrip.mjs`), those hops were most of a one-path
//! `validateAccess`. A pipe or socket set non-blocking is instead polled through epoll
//! ([`AsyncFd`]): the worker parked in epoll wakes with the bytes and answers without a hop.
//!
//! `O_NONBLOCK` belongs to the open file description, which a terminal or an inherited file
//! shares with the shell: those keep tokio's blocking-pool streams, and the flags of a pipe are
//! put back when its stream is dropped (and by [`restore`] before the process exits).
//!
//! With `parse_worker.rs`, the only module that may use `unsafe`: each block is one system call
//! (`fstat`, `fcntl`, `read`, `write`) on a descriptor number and memory the call owns or borrows.
#![allow(unsafe_code)]

use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::pin::Pin;
use std::sync::Mutex;
use std::task::{Context, Poll, ready};

use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Descriptors switched to non-blocking, with the flags to put back.
static SWITCHED: Mutex<Vec<Switched>> = Mutex::new(Vec::new());

/// One descriptor switched to non-blocking.
struct Switched {
    fd: RawFd,
    /// The flags before the switch.
    flags: libc::c_int,
    /// The open file (device, inode): stdin and stdout may be one socket, whose one
    /// `O_NONBLOCK` flag both share, so it goes back only when neither is polled any more.
    file: (libc::dev_t, libc::ino_t),
}

fn switched() -> std::sync::MutexGuard<'static, Vec<Switched>> {
    SWITCHED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Standard input: a polled pipe or tokio's.
pub enum Stdin {
    Polled(Polled),
    Blocking(tokio::io::Stdin),
}

/// Standard output: a polled pipe or tokio's.
pub enum Stdout {
    Polled(Polled),
    Blocking(tokio::io::Stdout),
}

/// `ROO_CONTEXT_BLOCKING_STDIO=1` keeps tokio's streams whatever stdin and stdout are: the way
/// back if polling ever misbehaves on a platform, and the A/B of the round-trip bench.
fn polling_wanted() -> bool {
    std::env::var("ROO_CONTEXT_BLOCKING_STDIO").map_or(true, |v| v != "1")
}

/// The process's stdin. Must be called inside the runtime.
pub fn stdin() -> Stdin {
    match polling_wanted()
        .then(|| Polled::new(libc::STDIN_FILENO))
        .flatten()
    {
        Some(polled) => Stdin::Polled(polled),
        None => Stdin::Blocking(tokio::io::stdin()),
    }
}

/// The process's stdout. Must be called inside the runtime.
pub fn stdout() -> Stdout {
    match polling_wanted()
        .then(|| Polled::new(libc::STDOUT_FILENO))
        .flatten()
    {
        Some(polled) => Stdout::Polled(polled),
        None => Stdout::Blocking(tokio::io::stdout()),
    }
}

/// Puts back the flags of every descriptor switched to non-blocking (a stream still held by a
/// task that was not dropped, at exit).
pub fn restore() {
    for Switched { fd, flags, .. } in std::mem::take(&mut *switched()) {
        // SAFETY: fcntl on a descriptor number; a closed one answers EBADF, which is ignored.
        unsafe { libc::fcntl(fd, libc::F_SETFL, flags) };
    }
}

/// A pipe or socket descriptor, non-blocking, registered with the runtime's reactor.
pub struct Polled {
    fd: AsyncFd<Descriptor>,
}

/// The raw descriptor (not owned: stdin and stdout stay open until the process ends).
struct Descriptor(RawFd);

impl AsRawFd for Descriptor {
    fn as_raw_fd(&self) -> RawFd {
        self.0
    }
}

impl Polled {
    /// `fd` polled, when it is a pipe or a socket that can be switched to non-blocking.
    fn new(fd: RawFd) -> Option<Polled> {
        let mut switched = switched();
        // SAFETY: fstat fills the zeroed struct it is given; fcntl reads and sets status flags.
        let (flags, file) = unsafe {
            let mut stat: libc::stat = std::mem::zeroed();
            if libc::fstat(fd, &mut stat) != 0 {
                return None;
            }
            let kind = stat.st_mode & libc::S_IFMT;
            if kind != libc::S_IFIFO && kind != libc::S_IFSOCK {
                return None;
            }
            let file = (stat.st_dev, stat.st_ino);
            let flags = libc::fcntl(fd, libc::F_GETFL);
            if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) != 0 {
                return None;
            }
            // The same file switched already: what goes back is the flags from before that.
            let before = switched.iter().find(|s| s.file == file).map(|s| s.flags);
            (before.unwrap_or(flags), file)
        };
        // SAFETY: stdin and stdout stay open, on the same description, until the process
        // ends: nothing in the server closes or replaces descriptors 0 and 1.
        match unsafe { AsyncFd::register(Descriptor(fd)) } {
            Ok(polled) => {
                switched.push(Switched { fd, flags, file });
                Some(Polled { fd: polled })
            }
            Err(_) => {
                if !switched.iter().any(|s| s.file == file) {
                    // SAFETY: as above; the descriptor goes back as it was.
                    unsafe { libc::fcntl(fd, libc::F_SETFL, flags) };
                }
                None
            }
        }
    }
}

impl Drop for Polled {
    fn drop(&mut self) {
        let fd = self.fd.get_ref().0;
        let mut switched = switched();
        let Some(at) = switched.iter().position(|s| s.fd == fd) else {
            return;
        };
        let gone = switched.swap_remove(at);
        // A file still polled through another descriptor (stdin and stdout one socket) stays
        // non-blocking: its reads would otherwise block a runtime thread.
        if !switched.iter().any(|s| s.file == gone.file) {
            // SAFETY: fcntl on the descriptor this stream polled.
            unsafe { libc::fcntl(fd, libc::F_SETFL, gone.flags) };
        }
    }
}

impl AsyncRead for Polled {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        loop {
            let mut ready = ready!(self.fd.poll_read_ready(cx))?;
            let unfilled = buf.initialize_unfilled();
            let read = ready.try_io(|fd| {
                // SAFETY: reads at most `unfilled.len()` bytes into memory this call owns.
                let n = unsafe {
                    libc::read(fd.get_ref().0, unfilled.as_mut_ptr().cast(), unfilled.len())
                };
                if n < 0 {
                    Err(io::Error::last_os_error())
                } else {
                    Ok(n as usize)
                }
            });
            match read {
                Ok(Ok(n)) => {
                    buf.advance(n);
                    return Poll::Ready(Ok(()));
                }
                Ok(Err(error)) if error.kind() == io::ErrorKind::Interrupted => continue,
                Ok(Err(error)) => return Poll::Ready(Err(error)),
                Err(_would_block) => continue,
            }
        }
    }
}

impl AsyncWrite for Polled {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        loop {
            let mut ready = ready!(self.fd.poll_write_ready(cx))?;
            let written = ready.try_io(|fd| {
                // SAFETY: writes at most `data.len()` bytes from memory this call borrows.
                let n = unsafe { libc::write(fd.get_ref().0, data.as_ptr().cast(), data.len()) };
                if n < 0 {
                    Err(io::Error::last_os_error())
                } else {
                    Ok(n as usize)
                }
            });
            match written {
                Ok(Err(error)) if error.kind() == io::ErrorKind::Interrupted => continue,
                Ok(result) => return Poll::Ready(result),
                Err(_would_block) => continue,
            }
        }
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // Nothing is buffered: a write is in the pipe when it returns.
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

impl AsyncRead for Stdin {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stdin::Polled(polled) => Pin::new(polled).poll_read(cx, buf),
            Stdin::Blocking(stdin) => Pin::new(stdin).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Stdout {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Stdout::Polled(polled) => Pin::new(polled).poll_write(cx, data),
            Stdout::Blocking(stdout) => Pin::new(stdout).poll_write(cx, data),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stdout::Polled(polled) => Pin::new(polled).poll_flush(cx),
            Stdout::Blocking(stdout) => Pin::new(stdout).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stdout::Polled(polled) => Pin::new(polled).poll_shutdown(cx),
            Stdout::Blocking(stdout) => Pin::new(stdout).poll_shutdown(cx),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn nonblocking(fd: RawFd) -> bool {
        // SAFETY: reads the status flags of a descriptor this test holds open.
        unsafe { libc::fcntl(fd, libc::F_GETFL) & libc::O_NONBLOCK != 0 }
    }

    #[tokio::test]
    async fn a_pipe_is_polled_on_the_runtime_and_its_flags_come_back_when_dropped() {
        let (reader, mut writer) = std::io::pipe().unwrap();
        let fd = reader.as_raw_fd();
        let mut polled = Polled::new(fd).expect("a pipe is polled");
        assert!(nonblocking(fd));
        writer.write_all(b"Content-Length: 2\r\n\r\n{}").unwrap();
        let mut read = vec![0; 23];
        polled.read_exact(&mut read).await.unwrap();
        assert_eq!(read, b"Content-Length: 2\r\n\r\n{}");
        drop(polled);
        assert!(!nonblocking(fd), "the flags are put back");
    }

    #[tokio::test]
    async fn a_write_larger_than_the_pipe_waits_for_the_reader_instead_of_failing() {
        let (mut reader, writer) = std::io::pipe().unwrap();
        let mut polled = Polled::new(writer.as_raw_fd()).expect("a pipe is polled");
        let drain = std::thread::spawn(move || {
            let mut all = Vec::new();
            std::io::Read::read_to_end(&mut reader, &mut all).unwrap();
            all.len()
        });
        // Several pipe buffers' worth: some writes meet a full pipe (EAGAIN) and must wait.
        let big = vec![b'x'; 1 << 20];
        polled.write_all(&big).await.unwrap();
        drop(polled);
        drop(writer);
        assert_eq!(drain.join().unwrap(), 1 << 20);
    }

    #[tokio::test]
    async fn one_socket_as_stdin_and_stdout_stays_polled_until_neither_uses_it() {
        let (socket, _peer) = std::os::unix::net::UnixStream::pair().unwrap();
        let other = socket.try_clone().unwrap(); // a second descriptor, the same open file
        let reading = Polled::new(socket.as_raw_fd()).expect("a socket is polled");
        let writing = Polled::new(other.as_raw_fd()).expect("a socket is polled");
        drop(reading);
        assert!(
            nonblocking(other.as_raw_fd()),
            "still polled through the other descriptor"
        );
        drop(writing);
        assert!(
            !nonblocking(socket.as_raw_fd()),
            "the flags from before both come back"
        );
    }

    #[tokio::test]
    async fn a_regular_file_keeps_the_blocking_streams() {
        let file = tempfile::tempfile().unwrap();
        assert!(Polled::new(file.as_raw_fd()).is_none());
        assert!(!nonblocking(file.as_raw_fd()));
    }
}
