package io.rafestore.internal.journal;

import io.rafestore.JournalException;
import io.rafestore.JournalException.Reason;
import io.rafestore.spi.support.Futures;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.zip.CRC32C;

/**
 * The write-back journal on local disk: segment files of checksummed frames, each frame one group
 * of records written and fsynced together (group commit: every record that arrives while an fsync
 * runs goes into the next frame). Knows nothing of the protocol: a record is an intent (a key and a
 * value), a commit (opaque bytes: the signed log that carries the intent's entry) or a done mark,
 * each named by a 16-byte intent id.
 *
 * <p>Format (big-endian), design.md "Write-back journal":
 *
 * <pre>
 * segment file "segment-&lt;16 digits&gt;.rfj":
 *   header: "RFWJ" | format u8 = 2 | segment number i64 | crc32c u32 (of the 13 bytes before)
 *   frames: "RFWB" | body length u32 | crc32c u32 (of the body) | body = records
 *   zeros to the end of the file (written ahead of the frames; format 1 files end at a frame)
 * record: type u8 (1 intent, 2 commit, 3 done, 4 commits) | intent id [16] |
 *   intent:  createdAtMillis i64 | key u16 + UTF-8 | value u32 + bytes
 *   commit:  u32 + bytes
 *   done:    nothing
 *   commits: (id: random, names no intent) shared u32 + bytes | count u16 |
 *            count x (intent id [16] | own u32 + bytes): each intent's commit is own + shared
 * </pre>
 *
 * <p>Durability: a record is reported durable only after its frame was written and {@link
 * FileChannel#force} returned ({@code force(false)} within the zeros written ahead, where the
 * file's length and blocks do not change; {@code force(true)} for a frame that extends the file); a
 * new segment's header is forced, and the directory fsynced, before any frame goes into it. A crash
 * can therefore tear only frames that were never reported durable, and only at the end of the
 * newest segment: on open, a frame that fails its checksum (or is cut short) in the newest segment,
 * with no valid frame after it, is that torn tail and is cut off; any other bad frame is reported
 * ({@link Reason#CORRUPT}), never skipped.
 *
 * <p>Space: segments are deleted oldest first, each only when every intent in it is done and every
 * older segment is gone (the directory fsynced after each), so a commit record (always in the same
 * or a later segment than its intent) outlives its intent's record. Thread-safety: every method may
 * be called from any thread. File work is done by one thread at a time, whichever holds the frame
 * lock: the writer thread, or a leader ({@link #lead}: a caller that writes and forces the frame of
 * its own record when none is in flight, leader/follower group commit). A record whose caller waits
 * in {@link #lead} has its future completed on that caller's thread; every other record's future is
 * completed by one acknowledger thread (in frame order, after the frame's force), so callbacks
 * attached to them run there and never delay the next frame; they must not block on the journal
 * ({@link #onAcknowledgerThread}).
 */
public final class Journal implements AutoCloseable {
  static final byte INTENT = 1;
  static final byte COMMIT = 2;
  static final byte DONE = 3;
  static final byte COMMITS = 4;

  static final int HEADER_BYTES = 17;

  /**
   * The segment format this journal writes: 2, preallocated (frames, then zeros to the file's end,
   * which read as the clean end). Format 1 (files end at their last frame) is still read.
   */
  static final byte FORMAT = 2;

  /** How far ahead of its frames a segment file is filled with zeros (within the segment size). */
  static final int PREALLOCATE_BYTES = 1024 * 1024;

  /**
   * Whether zeros are written ahead (default); {@code -Dio.rafestore.journal.preallocate=false}
   * writes format-2 segments without them, every frame then forced with {@code force(true)}: a
   * switch for measuring what the zeros save (WriteCostBench), read once.
   */
  private static final boolean PREALLOCATE =
      !"false".equals(System.getProperty("io.rafestore.journal.preallocate"));

  static final int FRAME_OVERHEAD = 12;
  static final int ID_BYTES = 16;
  private static final byte[] SEGMENT_MAGIC = "RFWJ".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] FRAME_MAGIC = "RFWB".getBytes(StandardCharsets.US_ASCII);

  /**
   * Largest frame body the writer thread builds from several records (one record may be larger).
   */
  private static final int BATCH_BYTES = 4 * 1024 * 1024;

  /**
   * An intent found on open that is not done: to replay, in journal order. Its value stays on disk
   * ({@link #read}): a full journal is not loaded onto the heap at restart.
   */
  public record Recovered(
      String id, String key, Location value, long createdAtMillis, byte[] commit) {}

  /**
   * Where an intent's value lies in the journal: segment number, byte offset in its file, length,
   * and the CRC-32C of the value taken when it was handed over ({@link #encodeIntent}) or, for a
   * recovered intent, when its frame's checksum was verified on open. {@link #read} gives the bytes
   * back and checks them against it. Valid until the intent is {@link #done}: its segment is
   * deleted only once every intent in it is.
   */
  public record Location(long segment, long offset, int length, int crc) {}

  private final Path dir;
  private final long maxBytes;
  private final int maxEntries;
  private final long segmentBytes;
  private final List<Recovered> recovered;

  // Guarded by "this": the admission state.
  private long diskBytes;
  private int pendingIntents;
  private final ArrayDeque<Waiter> waiting = new ArrayDeque<>();
  private JournalException failed;
  private boolean closed;

  // Owned by the writer thread (and by open, before it starts).
  private final TreeMap<Long, Segment> segments = new TreeMap<>();
  private final Map<String, Segment> segmentOf = new HashMap<>();
  private Segment active;
  private long nextSegment;

  /** Records admitted and not yet taken into a frame, in admission order. */
  private final ConcurrentLinkedQueue<Op> queue = new ConcurrentLinkedQueue<>();

  private final Thread writer;

  /**
   * Held by whichever thread writes and forces the next frame: the writer thread, or a leader (a
   * thread in {@link #lead} whose record is not durable yet, found the lock free). Guards
   * everything "owned by the writer thread" above: the segments, the active file, the frame.
   */
  private final ReentrantLock frameLock = new ReentrantLock();

  /** Set when the writer thread has work (a record no leader waits for, a stop, idle zeros). */
  private final AtomicBoolean writerWanted = new AtomicBoolean();

  /** Frames up to this size are built in {@link #reusedFrame}. */
  private static final int REUSED_FRAME_BYTES = 1024 * 1024;

  /** See {@link #frameBuffer}; guarded by {@link #frameLock}. */
  private ByteBuffer reusedFrame;

  /**
   * Set by the writer thread once it stopped (under {@link #frameLock}): nothing is written after.
   */
  private boolean stopped;

  /**
   * Completes the records' futures, in frame order, once their frame is forced (or failed). Not the
   * writer thread: whatever a future's callbacks do (the protocol's next step, a caller's own
   * continuation) runs here, so the writer is already writing and forcing the next frame.
   */
  private final java.util.concurrent.ThreadPoolExecutor acknowledger;

  /** Frames written and forced so far (a seam for tests). */
  private final java.util.concurrent.atomic.AtomicLong framesForced =
      new java.util.concurrent.atomic.AtomicLong();

  /** The thread that completes a journal's futures: its callbacks must not block on the journal. */
  private static final class AcknowledgerThread extends Thread {
    AcknowledgerThread(Runnable r, String name) {
      super(r, name);
      setDaemon(true);
    }
  }

  /**
   * Whether the calling thread is a journal's acknowledger (a callback of a journal future attached
   * before it completed runs there): a call that blocks until a journal record is acknowledged
   * would wait for this very thread, so blocking calls check this and refuse.
   */
  public static boolean onAcknowledgerThread() {
    return Thread.currentThread() instanceof AcknowledgerThread;
  }

  private static final Op STOP = new Op(DONE, "", new byte[0], null, 0);

  /** A parked leader's backstop: it looks again after this long even if nobody woke it. */
  private static final long LEADER_PARK_NANOS = 2_000_000L;

  /** The writer thread's backstop: it looks at the queue after this long idle. */
  private static final long WRITER_PARK_NANOS = 50_000_000L;

  /** Opens a new segment file for writing (a seam for tests that make the disk fail). */
  interface Opener {
    FileChannel create(Path path) throws IOException;
  }

  private final Opener opener;

  private Journal(Path dir, long maxBytes, int maxEntries, Opener opener) {
    this.opener = opener;
    this.dir = dir;
    this.maxBytes = maxBytes;
    this.maxEntries = maxEntries;
    // Small enough that a full journal frees space segment by segment, large enough that rotation
    // (a file creation and two fsyncs) is rare.
    this.segmentBytes = Math.max(64 * 1024, Math.min(64L * 1024 * 1024, maxBytes / 8));
    this.recovered = new ArrayList<>();
    this.writer = new Thread(this::writeLoop, "rafestore-journal " + dir.getFileName());
    this.writer.setDaemon(true);
    String ackName = "rafestore-journal-ack " + dir.getFileName();
    this.acknowledger =
        new java.util.concurrent.ThreadPoolExecutor(
            1,
            1,
            0,
            java.util.concurrent.TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            r -> new AcknowledgerThread(r, ackName));
  }

  /**
   * Opens (or creates) the journal in {@code dir}: reads every segment, cuts off a torn tail,
   * deletes segments whose intents are all done, and starts a fresh segment.
   *
   * @throws JournalException naming the file and cause if the directory cannot be created, read or
   *     written (read-only, full) or a record that may have been acknowledged is corrupt
   */
  public static Journal open(Path dir, long maxBytes, int maxEntries) throws JournalException {
    return open(
        dir,
        maxBytes,
        maxEntries,
        p -> FileChannel.open(p, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE));
  }

  /** As above, new segment files opened by {@code opener}. */
  static Journal open(Path dir, long maxBytes, int maxEntries, Opener opener)
      throws JournalException {
    Journal j = new Journal(dir, maxBytes, maxEntries, opener);
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new JournalException(Reason.IO, dir, "cannot create the directory: " + e, e);
    }
    j.lock();
    try {
      j.recover();
    } catch (JournalException | RuntimeException e) {
      j.unlock();
      j.acknowledger.shutdown();
      throw e;
    }
    j.writer.start();
    return j;
  }

  /** The lock that keeps a second client (in this process or another) off the directory. */
  private FileChannel lockChannel;

  private java.nio.channels.FileLock lock;

  private void lock() throws JournalException {
    Path file = dir.resolve("lock");
    try {
      lockChannel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      lock = lockChannel.tryLock();
    } catch (java.nio.channels.OverlappingFileLockException e) {
      lock = null;
    } catch (IOException e) {
      unlock();
      throw new JournalException(
          Reason.IO, file, "cannot create the lock file (read-only or full disk?): " + e, e);
    }
    if (lock == null) {
      unlock();
      throw new JournalException(
          Reason.IN_USE, dir, "in use by another client (one client at a time per journal)");
    }
  }

  private void unlock() {
    try {
      if (lock != null) {
        lock.release();
      }
      if (lockChannel != null) {
        lockChannel.close();
      }
    } catch (IOException e) {
      // Closing the channel releases the lock whatever happens; the process's end does too.
    }
  }

  /** The intents found on open that were not done, oldest first (each with its commit, if any). */
  public List<Recovered> recovered() {
    return List.copyOf(recovered);
  }

  /**
   * Read channels of segments holding values read back ({@link #read}), opened on first use and
   * closed when the segment is deleted or the journal closed.
   */
  private final java.util.concurrent.ConcurrentHashMap<Long, FileChannel> readers =
      new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * The value of an intent not yet {@link #done}, read back from its segment (from the page cache,
   * as a rule: it was written recently) and checked against the CRC-32C taken when it was handed
   * over. Any thread; a positional read, so concurrent reads do not disturb each other or the
   * writer.
   *
   * @throws JournalException {@link Reason#CORRUPT} if the bytes on disk are not the value written
   *     (the disk changed them), {@link Reason#IO} if they cannot be read (the segment is gone: the
   *     intent was done, or the directory was changed behind the journal's back), {@link
   *     Reason#CLOSED} once the journal is closed
   */
  public byte[] read(Location at) throws JournalException {
    // The segment's path only to open it or to name it in an error: the upload of every journaled
    // value reads it back, and the channel is nearly always open already.
    for (int attempt = 0; ; attempt++) {
      synchronized (this) {
        if (closed) {
          throw closedError();
        }
      }
      FileChannel ch;
      try {
        ch =
            readers.computeIfAbsent(
                at.segment(),
                n -> {
                  try {
                    return FileChannel.open(segmentPath(n), StandardOpenOption.READ);
                  } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                  }
                });
      } catch (java.io.UncheckedIOException e) {
        throw new JournalException(
            Reason.IO,
            segmentPath(at.segment()),
            "cannot open to read back a value: " + e.getCause(),
            e.getCause());
      }
      byte[] value = new byte[at.length()];
      ByteBuffer b = ByteBuffer.wrap(value);
      try {
        while (b.hasRemaining()) {
          if (ch.read(b, at.offset() + b.position()) < 0) {
            throw new JournalException(
                Reason.CORRUPT,
                segmentPath(at.segment()),
                "a value of "
                    + at.length()
                    + " bytes at offset "
                    + at.offset()
                    + " runs past the file's end");
          }
        }
      } catch (java.nio.channels.ClosedChannelException e) {
        // Closed by a deletion (then the next open fails) or by an interrupt of another reader.
        readers.remove(at.segment(), ch);
        if (attempt == 0 && !Thread.currentThread().isInterrupted()) {
          continue;
        }
        throw new JournalException(
            Reason.IO, segmentPath(at.segment()), "cannot read back a value: " + e, e);
      } catch (IOException e) {
        throw new JournalException(
            Reason.IO, segmentPath(at.segment()), "cannot read back a value: " + e, e);
      }
      if (crc(value, 0, value.length) != at.crc()) {
        throw new JournalException(
            Reason.CORRUPT,
            segmentPath(at.segment()),
            "the value of "
                + at.length()
                + " bytes at offset "
                + at.offset()
                + " fails its checksum: the disk changed it after it was acknowledged");
      }
      return value;
    }
  }

  /** Closes the read channel of segment {@code number}, if one is open. */
  private void closeReader(long number) {
    FileChannel ch = readers.remove(number);
    if (ch != null) {
      try {
        ch.close();
      } catch (IOException e) {
        // A read channel: nothing written depends on it.
      }
    }
  }

  private static int crc(byte[] b, int off, int len) {
    CRC32C c = new CRC32C();
    c.update(b, off, len);
    return (int) c.getValue();
  }

  public Path directory() {
    return dir;
  }

  /** Bytes of the journal's files (and records admitted but not written yet). */
  public synchronized long diskBytes() {
    return diskBytes;
  }

  /** Why the journal stopped for good (its disk failed), or null. */
  public synchronized JournalException failure() {
    return failed;
  }

  /** Frames written and forced so far. */
  long framesForced() {
    return framesForced.get();
  }

  /** Intents admitted and not yet done. */
  public synchronized int pendingIntents() {
    return pendingIntents;
  }

  /**
   * Appends an intent record and completes once it is fsynced. If the journal is full, waits for
   * space (in call order) when {@code waitForSpace}, else fails at once with {@link Reason#FULL}.
   * Intents are written in the order this method is called in, as far as they are admitted in that
   * order (a waiting intent keeps later ones waiting behind it). Cancelling the returned future
   * while it waits for space withdraws the intent.
   */
  public CompletableFuture<Void> intent(
      String id, String key, byte[] value, long createdAtMillis, boolean waitForSpace) {
    return intent(encodeIntent(id, key, value.clone(), createdAtMillis), waitForSpace);
  }

  /**
   * An intent record encoded for {@link #intent(EncodedIntent, boolean)}: a caller that appends
   * under a lock of its own (to keep its order the journal's) encodes first, outside that lock. The
   * record is its head (type, id, time, key, value length) followed by the value itself, which is
   * not copied: the frame is built from it (no second copy of every value to collect).
   */
  public static final class EncodedIntent {
    private final String id;
    private final byte[] head;
    private final byte[] value;
    private final int crc;

    /** Set by the frame's writer before the record's future completes; null before. */
    private volatile Location location;

    private EncodedIntent(String id, byte[] head, byte[] value, int crc) {
      this.id = id;
      this.head = head;
      this.value = value;
      this.crc = crc;
    }

    /**
     * Where the value was written, once the record's future completed successfully (null before, or
     * if it failed). The journal keeps no reference to the value once its frame is written, so a
     * caller that drops its own copy and keeps this keeps the value off the heap.
     */
    public Location location() {
      return location;
    }

    public String id() {
      return id;
    }
  }

  /**
   * Encodes an intent record (no journal state is touched): see {@link EncodedIntent}. {@code
   * value} is not copied and must not change afterwards (pass a copy of one's own).
   */
  public static EncodedIntent encodeIntent(
      String id, String key, byte[] value, long createdAtMillis) {
    byte[] k = key.getBytes(StandardCharsets.UTF_8);
    ByteBuffer b = ByteBuffer.allocate(1 + ID_BYTES + 8 + 2 + k.length + 4);
    b.put(INTENT).put(idBytes(id)).putLong(createdAtMillis);
    b.putShort((short) k.length).put(k).putInt(value.length);
    return new EncodedIntent(id, b.array(), value, crc(value, 0, value.length));
  }

  /** As {@link #intent(String, String, byte[], long, boolean)}, the record encoded already. */
  public CompletableFuture<Void> intent(EncodedIntent record, boolean waitForSpace) {
    return intent(record, waitForSpace, false);
  }

  /**
   * As {@link #intent(EncodedIntent, boolean)}; with {@code willLead}, the caller promises to call
   * {@link #lead} with the returned future next (outside any lock of its own), and the writer
   * thread is not woken for this record: the caller writes and forces its frame itself if no frame
   * is being written, else the thread writing one takes it into the next. Without {@code willLead}
   * (or if the intent waits for space), the writer thread writes it and the acknowledger completes
   * it, as for every other record.
   */
  public CompletableFuture<Void> intent(
      EncodedIntent record, boolean waitForSpace, boolean willLead) {
    Op op = new Op(INTENT, record.id, record.head, record.value, new OpFuture());
    op.origin = record;
    int valueLength = record.value.length;
    long need = op.length() + FRAME_OVERHEAD;
    synchronized (this) {
      JournalException refused = refusal();
      if (refused != null) {
        op.done.completeExceptionally(refused);
        return op.done;
      }
      if (need + HEADER_BYTES > maxBytes) {
        op.done.completeExceptionally(
            new JournalException(
                Reason.FULL,
                dir,
                "a value of "
                    + valueLength
                    + " bytes does not fit a journal bounded at maxBytes "
                    + maxBytes));
        return op.done;
      }
      if (waiting.isEmpty() && fits(need)) {
        if (!willLead) {
          op.unattended();
        }
        admit(op, need);
      } else if (!waitForSpace) {
        op.done.completeExceptionally(full());
        return op.done;
      } else {
        op.unattended();
        Waiter w = new Waiter(op, need);
        waiting.add(w);
        Futures.onEnd(
            op.done,
            (r, e) -> {
              synchronized (this) {
                waiting.remove(w);
              }
            });
        // Space may have been freed by a rotation only: ask the writer to rotate an idle segment.
        queue.add(new Op((byte) 0, "", new byte[0], null, 0));
        wakeWriter();
      }
    }
    return op.done;
  }

  /** Frames written by a calling thread in {@link #lead} (the leader path), since open. */
  public long framesLed() {
    return framesLed.sum();
  }

  private final java.util.concurrent.atomic.LongAdder framesLed =
      new java.util.concurrent.atomic.LongAdder();

  /**
   * Makes the record of {@code future} (returned by {@link #intent(EncodedIntent, boolean,
   * boolean)} with {@code willLead}) durable on the calling thread, returning once it is, its
   * future completed here (its callbacks run on this thread): leader/follower group commit. If no
   * frame is being written, this thread takes every queued record into one frame, writes and forces
   * it (the leader), and wakes the threads waiting in here for the other records of the frame, each
   * of which then completes its own future; if a frame is being written, it parks until the writing
   * thread wakes it (its record was in that frame, or the next frame is its to lead). So an
   * unloaded write costs one fsync with no hand-over between threads, and a loaded one at most the
   * frame in flight and its own. If another thread's frame was forced with the record before this
   * call, completes it here at once (a record's state stays open until its frame is forced, so a
   * frame in flight wakes this thread). Returns at once for any other future (a record that waits
   * for space is the writer thread's), or if the thread is interrupted (the record is written all
   * the same and its future completed by the acknowledger).
   */
  public void lead(CompletableFuture<Void> future) {
    if (!(future instanceof OpFuture f) || f.op == null) {
      return;
    }
    Op op = f.op;
    Thread me = Thread.currentThread();
    op.helper = me;
    if (!op.state.compareAndSet(Op.OPEN, Op.LED)) {
      // A frame was forced with it before this call (its outcome is set, and the acknowledger was
      // handed it too: whichever is first completes it), or it waits for space (no outcome yet).
      complete(op);
      return;
    }
    while (op.outcome == null && !op.done.isDone()) {
      if (me.isInterrupted()) {
        // Leaves the completion to the acknowledger (below, or the frame's if it read LED first).
        op.state.set(Op.ACK);
        break;
      }
      if (frameLock.tryLock()) {
        try {
          if (op.outcome == null) {
            if (stopped) {
              settle(List.of(op), closedError());
            } else {
              writeNext();
              framesLed.increment();
              if (zerosLow()) {
                // Topped up by the writer thread when the queue is empty, not in this call.
                wakeWriter();
              }
            }
          }
        } finally {
          frameLock.unlock();
        }
        wakeNextLeader();
      } else {
        LockSupport.parkNanos(this, LEADER_PARK_NANOS);
      }
    }
    complete(op);
  }

  /** Completes {@code op}'s future with its outcome, if it has one (harmless if done already). */
  private static void complete(Op op) {
    Object outcome = op.outcome;
    if (outcome == Op.DURABLE) {
      op.done.complete(null);
    } else if (outcome != null) {
      op.done.completeExceptionally((Throwable) outcome);
    }
  }

  /** Wakes the writer thread (at most one unpark until it looks). */
  private void wakeWriter() {
    if (!writerWanted.getAndSet(true)) {
      LockSupport.unpark(writer);
    }
  }

  /**
   * After a frame, with the frame lock released: wakes the first thread waiting in {@link #lead}
   * whose record is still queued, to lead the next frame (the writer thread was woken for records
   * no leader waits for when they were queued).
   */
  private void wakeNextLeader() {
    for (Op o : queue) {
      if (o.state.get() == Op.LED) {
        LockSupport.unpark(o.helper);
        return;
      }
    }
  }

  /**
   * Appends a commit record for intent {@code id} ({@code bytes}: what the protocol needs to redo
   * the intent's metadata phase exactly) and completes once it is fsynced. Never waits for space.
   */
  public CompletableFuture<Void> commit(String id, byte[] bytes) {
    ByteBuffer b = ByteBuffer.allocate(1 + ID_BYTES + 4 + bytes.length);
    b.put(COMMIT).put(idBytes(id)).putInt(bytes.length).put(bytes);
    return enqueueUnlessRefused(new Op(COMMIT, id, b.array(), new CompletableFuture<>(), 0));
  }

  /** Queues a commit record for the writer thread, or fails it at once if the journal refuses. */
  private CompletableFuture<Void> enqueueUnlessRefused(Op op) {
    synchronized (this) {
      JournalException refused = refusal();
      if (refused != null) {
        op.done.completeExceptionally(refused);
        return op.done;
      }
    }
    op.unattended();
    queue.add(op);
    wakeWriter();
    return op.done;
  }

  /**
   * Appends the commit records of several intents that share most of their bytes (the intents of
   * one round share its signed log): intent {@code ids.get(i)}'s commit is {@code own.get(i)}
   * followed by {@code shared}, as {@link #commit} would record it, but {@code shared} is written
   * once, in one record for all of them (with a single id, a plain commit record). Completes once
   * that record is fsynced; never waits for space. On open each listed intent not done is recovered
   * with its own + shared bytes.
   */
  public CompletableFuture<Void> commitAll(List<String> ids, List<byte[]> own, byte[] shared) {
    if (ids.size() != own.size() || ids.isEmpty() || ids.size() > 0xFFFF) {
      throw new IllegalArgumentException(ids.size() + " ids, " + own.size() + " own parts");
    }
    if (ids.size() == 1) {
      byte[] one = own.get(0);
      byte[] bytes = new byte[one.length + shared.length];
      System.arraycopy(one, 0, bytes, 0, one.length);
      System.arraycopy(shared, 0, bytes, one.length, shared.length);
      return commit(ids.get(0), bytes);
    }
    int size = 1 + ID_BYTES + 4 + shared.length + 2;
    for (byte[] o : own) {
      size += ID_BYTES + 4 + o.length;
    }
    ByteBuffer b = ByteBuffer.allocate(size);
    b.put(COMMITS).put(idBytes(newId())).putInt(shared.length).put(shared);
    b.putShort((short) ids.size());
    for (int i = 0; i < ids.size(); i++) {
      b.put(idBytes(ids.get(i))).putInt(own.get(i).length).put(own.get(i));
    }
    return enqueueUnlessRefused(new Op(COMMITS, "", b.array(), new CompletableFuture<>(), 0));
  }

  /**
   * Marks intent {@code id} done (on the clouds): its space is freed once its segment and every
   * older one are done. The mark is written with the next frame and not waited for: an intent
   * replayed after a crash because its mark was lost is redone exactly once all the same.
   */
  public void done(String id) {
    ByteBuffer b = ByteBuffer.allocate(1 + ID_BYTES);
    b.put(DONE).put(idBytes(id));
    synchronized (this) {
      if (closed || failed != null) {
        return;
      }
    }
    queue.add(new Op(DONE, id, b.array(), null, 0));
    wakeWriter();
  }

  /** Stops the writer thread after the records queued so far; later calls fail. Idempotent. */
  @Override
  public void close() {
    List<Waiter> dropped;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      dropped = new ArrayList<>(waiting);
      waiting.clear();
    }
    for (Waiter w : dropped) {
      w.op.done.completeExceptionally(closedError());
    }
    queue.add(STOP);
    wakeWriter();
    try {
      writer.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private JournalException refusal() {
    if (failed != null) {
      return failed;
    }
    return closed ? closedError() : null;
  }

  private JournalException closedError() {
    return new JournalException(Reason.CLOSED, dir, "the client is closed");
  }

  private JournalException full() {
    return new JournalException(
        Reason.FULL,
        dir,
        "full: "
            + pendingIntents
            + " writes not yet on the clouds (maxEntries "
            + maxEntries
            + "), "
            + diskBytes
            + " bytes on disk (maxBytes "
            + maxBytes
            + ")");
  }

  /** Caller holds the lock. */
  private boolean fits(long need) {
    return pendingIntents < maxEntries && diskBytes + need <= maxBytes;
  }

  /** Caller holds the lock. */
  private void admit(Op op, long need) {
    diskBytes += need;
    pendingIntents++;
    queue.add(op);
  }

  /** Admits waiting intents that now fit, in order. Caller holds the lock. */
  private void admitWaiting() {
    while (!waiting.isEmpty()) {
      Waiter w = waiting.peek();
      if (w.op.done.isDone()) {
        waiting.poll();
        continue;
      }
      if (!fits(w.need)) {
        return;
      }
      waiting.poll();
      admit(w.op, w.need);
      wakeWriter();
    }
  }

  private record Waiter(Op op, long need) {}

  /** A record's future: names the record, for {@link #lead}. */
  private static final class OpFuture extends CompletableFuture<Void> {
    volatile Op op;
  }

  /**
   * A record for the next frame; {@code reserved} is what admission counted for it. Who completes
   * its future: the thread waiting for it in {@link #lead} ({@link #LED}), else the acknowledger
   * ({@link #ACK}); {@link #OPEN} until one of them claims it (the frame's writer claims ACK for a
   * record whose thread has not reached {@link #lead} yet). A future may be completed twice
   * harmlessly (with the same outcome), never not at all: {@link #outcome} is set before either
   * side looks at the state.
   */
  private static final class Op {
    static final int OPEN = 0;
    static final int LED = 1;
    static final int ACK = 2;
    static final Object DURABLE = new Object();

    final byte type;
    final String id;

    /**
     * The record's bytes; {@link #bytes} and {@link #tail} are dropped once its frame is written
     * (writer thread), so that a future still held by a caller does not keep a value on the heap.
     */
    byte[] bytes;

    /** Written right after {@link #bytes} (an intent's value), or null. */
    byte[] tail;

    /** The record's length in a frame. */
    final int length;

    /** An intent's encoded record, told where its value was written; null for other records. */
    EncodedIntent origin;

    final CompletableFuture<Void> done;
    final long reserved;
    final AtomicInteger state = new AtomicInteger(OPEN);
    volatile Thread helper;

    /** Null until the record's frame was forced ({@link #DURABLE}) or failed (the exception). */
    volatile Object outcome;

    Op(byte type, String id, byte[] bytes, CompletableFuture<Void> done, long reserved) {
      this(type, id, bytes, null, done, reserved);
    }

    /** An intent: {@code head}, then {@code value}. */
    Op(byte type, String id, byte[] head, byte[] value, CompletableFuture<Void> done) {
      this(type, id, head, value, done, head.length + value.length);
    }

    private Op(
        byte type,
        String id,
        byte[] bytes,
        byte[] tail,
        CompletableFuture<Void> done,
        long reserved) {
      this.type = type;
      this.id = id;
      this.bytes = bytes;
      this.tail = tail;
      this.length = tail == null ? bytes.length : bytes.length + tail.length;
      this.done = done;
      this.reserved = reserved;
      if (done instanceof OpFuture f) {
        f.op = this;
      }
    }

    /** No thread will lead for it: the acknowledger completes it. */
    void unattended() {
      state.set(ACK);
    }

    /** The record's length in a frame. */
    int length() {
      return length;
    }

    long reservation() {
      return type == INTENT ? length() + FRAME_OVERHEAD : 0;
    }
  }

  private static final class Segment {
    final long number;
    final Path path;
    long size;

    /** The file's length: frames end at {@code size}, zeros follow up to here (format 2). */
    long allocated;

    /**
     * Its intents not marked done yet (each id is in {@link #segmentOf} until then, which is what
     * makes a second done mark of an id count once): a count, not a set of ids, since a backlog
     * holds one per pending write.
     */
    int pending;

    FileChannel channel;

    Segment(long number, Path path) {
      this.number = number;
      this.path = path;
    }
  }

  // ---------------------------------------------------------------- writer thread

  private void writeLoop() {
    while (true) {
      if (!writerWanted.getAndSet(false)) {
        if (Thread.currentThread().isInterrupted()) {
          return;
        }
        LockSupport.parkNanos(this, WRITER_PARK_NANOS);
        // A backstop: a record queued for a leader that never came is written after this long.
        if (!writerWanted.getAndSet(false) && queue.isEmpty()) {
          continue;
        }
      }
      boolean stop = false;
      frameLock.lock();
      try {
        Op head;
        while ((head = queue.peek()) != null) {
          if (head == STOP) {
            queue.poll();
            stop = true;
            break;
          }
          writeNext();
        }
        if (stop) {
          stopped = true;
          closeFiles();
          failQueued();
          unlock();
          // Runs what is queued already (the last frames' acknowledgements), then ends.
          acknowledger.shutdown();
        } else {
          extendWhileIdle();
        }
      } finally {
        frameLock.unlock();
      }
      if (stop) {
        return;
      }
      wakeNextLeader();
    }
  }

  /**
   * Takes the queued records (up to {@link #BATCH_BYTES}, at least one, never past a stop) into one
   * frame, writes and forces it, and settles their futures. Caller holds {@link #frameLock}.
   */
  private void writeNext() {
    List<Op> batch = new ArrayList<>();
    int bytes = 0;
    Op next;
    while ((batch.isEmpty() || bytes < BATCH_BYTES)
        && (next = queue.peek()) != null
        && next != STOP) {
      queue.poll();
      batch.add(next);
      bytes += next.length();
    }
    if (!batch.isEmpty()) {
      writeBatch(batch);
    }
  }

  /** Whether {@link #extendWhileIdle} has zeros to write. Caller holds {@link #frameLock}. */
  private boolean zerosLow() {
    Segment s = active;
    return PREALLOCATE
        && s != null
        && s.channel != null
        && s.allocated < segmentBytes
        && s.allocated - s.size < PREALLOCATE_BYTES / 2;
  }

  /**
   * With nothing queued, tops up the zeros ahead of the active segment's frames when fewer than
   * half of {@link #PREALLOCATE_BYTES} are left, and forces them ({@code force(true)}: the file's
   * new length with them), so that a frame rarely has to write them (a megabyte, and a metadata
   * commit) between its own write and force, where every record of the frame waits for them. Zeros
   * are not records: whether or not this completes before a crash, recovery reads them as the clean
   * end, as it reads the zeros a frame's force carries. A failed force stops the journal, as any.
   */
  private void extendWhileIdle() {
    Segment s = active;
    if (!zerosLow() || !queue.isEmpty()) {
      return;
    }
    synchronized (this) {
      if (failed != null) {
        return;
      }
    }
    long to = preallocate(s, s.allocated);
    if (to <= s.allocated) {
      return;
    }
    try {
      s.channel.force(true);
    } catch (IOException e) {
      fail(new JournalException(Reason.IO, s.path, "fsync failed: " + e, e), true);
      return;
    }
    s.allocated = to;
  }

  /** Counts intent {@code id} as pending in {@code s} (and no longer in any segment before). */
  private void track(String id, Segment s) {
    Segment before = segmentOf.put(id, s);
    if (before != null) {
      before.pending--;
    }
    s.pending++;
  }

  private void writeBatch(List<Op> batch) {
    List<Op> records = new ArrayList<>();
    List<String> doneIds = new ArrayList<>();
    for (Op op : batch) {
      if (op.type == DONE) {
        doneIds.add(op.id);
      }
      if (op.type != 0) {
        records.add(op);
      }
    }
    JournalException failure;
    synchronized (this) {
      failure = failed;
    }
    if (failure == null && !records.isEmpty()) {
      failure = writeFrame(records);
    }
    if (failure != null) {
      long release = 0;
      int intents = 0;
      for (Op op : records) {
        release += op.reservation();
        intents += op.type == INTENT ? 1 : 0;
      }
      synchronized (this) {
        diskBytes -= release;
        pendingIntents -= intents;
      }
      settle(records, failure);
    } else {
      for (Op op : records) {
        if (op.type == INTENT) {
          track(op.id, active);
        }
      }
    }
    int finished = 0;
    for (String id : doneIds) {
      Segment s = segmentOf.remove(id);
      if (s != null) {
        s.pending--;
        finished++;
      }
    }
    if (finished > 0) {
      synchronized (this) {
        pendingIntents -= finished;
      }
    }
    reclaim();
    // Completed last: once a record is durable, every done mark before it has freed its space.
    // Not on this thread, so that the callbacks do not hold up the next frame's write and force.
    if (failure == null) {
      settle(records, null);
    }
  }

  /**
   * Records the outcome of {@code ops}' frame (null: durable) and has their futures completed: a
   * record's own thread waiting in {@link #lead} is woken and completes it (the calling thread's
   * own record it completes itself, after the frame lock is released); every other record's future
   * is completed by the acknowledger, in frame order.
   */
  private void settle(List<Op> ops, JournalException error) {
    Object outcome = error == null ? Op.DURABLE : error;
    Thread me = Thread.currentThread();
    List<Op> acks = null;
    for (Op op : ops) {
      if (op.done == null) {
        continue;
      }
      op.outcome = outcome;
      op.state.compareAndSet(Op.OPEN, Op.ACK);
      if (op.state.get() == Op.LED) {
        if (op.helper != me) {
          LockSupport.unpark(op.helper);
        }
      } else {
        if (acks == null) {
          acks = new ArrayList<>();
        }
        acks.add(op);
      }
    }
    if (acks != null) {
      List<Op> toComplete = acks;
      acknowledge(
          () -> {
            for (Op op : toComplete) {
              if (error == null) {
                op.done.complete(null);
              } else {
                op.done.completeExceptionally(error);
              }
            }
          });
    }
  }

  /** Runs {@code completions} on the acknowledger thread, after those handed over before. */
  private void acknowledge(Runnable completions) {
    try {
      acknowledger.execute(completions);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // Only after the writer stopped, which hands nothing over after that.
      completions.run();
    }
  }

  /** Writes one frame holding {@code records} and forces it; null on success. */
  private JournalException writeFrame(List<Op> records) {
    int body = 0;
    for (Op op : records) {
      body += op.length();
    }
    ByteBuffer frame = frameBuffer(FRAME_OVERHEAD + body);
    CRC32C crc = new CRC32C();
    for (Op op : records) {
      crc.update(op.bytes);
      if (op.tail != null) {
        crc.update(op.tail);
      }
    }
    frame.put(FRAME_MAGIC).putInt(body).putInt((int) crc.getValue());
    for (Op op : records) {
      frame.put(op.bytes);
      if (op.tail != null) {
        frame.put(op.tail);
      }
    }
    frame.flip();
    try {
      if (active == null
          || (active.size > HEADER_BYTES && active.size + frame.remaining() > segmentBytes)) {
        rotate();
      }
    } catch (IOException e) {
      return fail(
          new JournalException(Reason.IO, dir, "cannot start a new segment file: " + e, e), true);
    }
    long start = active.size;
    long end = start + frame.remaining();
    try {
      while (frame.hasRemaining()) {
        active.channel.write(frame, start + frame.position());
      }
    } catch (IOException e) {
      // A full disk: take the partial frame back so that later frames do not follow a bad one
      // (which replay would rightly call corruption). If that fails too (a disk remounted
      // read-only takes nothing back), the journal stops.
      JournalException err =
          new JournalException(
              Reason.IO, active.path, "write failed (disk full or read-only?): " + e, e);
      try {
        active.channel.truncate(start);
        active.channel.force(true);
        active.allocated = start;
        return err;
      } catch (IOException again) {
        return fail(err, true);
      }
    }
    // Within the zeros written ahead, the file's length and blocks do not change: fdatasync
    // (force(false)) makes the frame durable without a metadata commit. A frame past them extends
    // the file (and the zeros ahead of it): force(true), which also makes the new length durable.
    boolean grows = end > active.allocated;
    if (grows) {
      active.allocated = Math.max(end, preallocate(active, end));
    }
    try {
      active.channel.force(grows);
    } catch (IOException e) {
      // After a failed fsync the page cache cannot be trusted to reach the disk: stop for good.
      return fail(new JournalException(Reason.IO, active.path, "fsync failed: " + e, e), true);
    }
    framesForced.incrementAndGet();
    long at = start + FRAME_OVERHEAD;
    for (Op op : records) {
      if (op.origin != null) {
        EncodedIntent r = op.origin;
        r.location = new Location(active.number, at + op.bytes.length, op.tail.length, r.crc);
        op.origin = null;
      }
      at += op.length;
      op.bytes = null;
      op.tail = null;
    }
    long written = FRAME_OVERHEAD + (long) body;
    active.size += written;
    long reserved = 0;
    for (Op op : records) {
      reserved += op.reservation();
    }
    synchronized (this) {
      diskBytes += written - reserved;
    }
    return null;
  }

  /**
   * A buffer of {@code size} bytes for the next frame: up to {@link #REUSED_FRAME_BYTES}, the one
   * direct buffer kept for frames (no garbage per frame, and no copy into a temporary direct buffer
   * on write); a larger frame gets one of its own. Caller holds {@link #frameLock}.
   */
  private ByteBuffer frameBuffer(int size) {
    if (size > REUSED_FRAME_BYTES) {
      return ByteBuffer.allocate(size);
    }
    if (reusedFrame == null || reusedFrame.capacity() < size) {
      int capacity = Math.max(size, reusedFrame == null ? 16 * 1024 : reusedFrame.capacity() * 2);
      reusedFrame = ByteBuffer.allocateDirect(Math.min(REUSED_FRAME_BYTES, capacity));
    }
    return reusedFrame.clear().limit(size);
  }

  private JournalException fail(JournalException e, boolean permanent) {
    if (permanent) {
      List<Waiter> dropped;
      synchronized (this) {
        if (failed == null) {
          failed = e;
        }
        dropped = new ArrayList<>(waiting);
        waiting.clear();
      }
      acknowledge(
          () -> {
            for (Waiter w : dropped) {
              w.op.done.completeExceptionally(e);
            }
          });
    }
    return e;
  }

  /**
   * Writes zeros from {@code from} up to {@link #PREALLOCATE_BYTES} ahead (within the segment size,
   * never past it); returns the file's length after (a failed write, as on a full disk, leaves
   * fewer zeros, which read as the clean end all the same). Not forced here: the caller forces.
   */
  /**
   * 64 KiB of zeros, never written to: each use takes a {@code duplicate()} (its own position and
   * limit). Direct, so a channel write copies nothing first, and allocated once, not per top-up.
   */
  private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(64 * 1024);

  private long preallocate(Segment s, long from) {
    long to = PREALLOCATE ? Math.min(segmentBytes, from + PREALLOCATE_BYTES) : from;
    long at = from;
    ByteBuffer zeros = ZEROS.duplicate();
    try {
      while (at < to) {
        zeros.clear().limit((int) Math.min(zeros.capacity(), to - at));
        at += s.channel.write(zeros, at);
      }
    } catch (IOException e) {
      // A full disk: the frames go on without zeros ahead (each then forced with its metadata).
    }
    return at;
  }

  /** Starts a new segment: header written and forced, then the directory fsynced. */
  private void rotate() throws IOException {
    long number = nextSegment++;
    Path path = segmentPath(number);
    FileChannel ch = opener.create(path);
    Segment s = new Segment(number, path);
    try {
      ByteBuffer h = ByteBuffer.allocate(HEADER_BYTES);
      h.put(SEGMENT_MAGIC).put(FORMAT).putLong(number);
      CRC32C crc = new CRC32C();
      crc.update(h.array(), 0, 13);
      h.putInt((int) crc.getValue());
      h.flip();
      while (h.hasRemaining()) {
        ch.write(h, h.position());
      }
      s.channel = ch;
      s.allocated = Math.max(HEADER_BYTES, preallocate(s, HEADER_BYTES));
      ch.force(true);
      syncDirectory();
    } catch (IOException e) {
      ch.close();
      Files.deleteIfExists(path);
      throw e;
    }
    s.size = HEADER_BYTES;
    if (active != null) {
      active.channel.close();
      active.channel = null;
    }
    active = s;
    segments.put(number, s);
    synchronized (this) {
      diskBytes += HEADER_BYTES;
    }
  }

  /**
   * Deletes done segments, oldest first, each only when every older one is gone, fsyncing the
   * directory after each; rotates an idle active segment if writes wait for space.
   */
  private void reclaim() {
    boolean waiters;
    synchronized (this) {
      waiters = !waiting.isEmpty();
    }
    if (waiters && active != null && active.pending == 0 && active.size > HEADER_BYTES) {
      try {
        rotate();
      } catch (IOException e) {
        fail(
            new JournalException(Reason.IO, dir, "cannot start a new segment file: " + e, e), true);
      }
    }
    long freed = 0;
    while (!segments.isEmpty()) {
      Segment oldest = segments.firstEntry().getValue();
      if (oldest == active || oldest.pending > 0) {
        break;
      }
      try {
        Files.deleteIfExists(oldest.path);
        syncDirectory();
      } catch (IOException e) {
        fail(new JournalException(Reason.IO, oldest.path, "cannot delete: " + e, e), true);
        break;
      }
      segments.remove(oldest.number);
      closeReader(oldest.number);
      freed += oldest.size;
    }
    synchronized (this) {
      diskBytes -= freed;
      admitWaiting();
    }
  }

  private void syncDirectory() throws IOException {
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    }
  }

  private void closeFiles() {
    for (Long n : List.copyOf(readers.keySet())) {
      closeReader(n);
    }
    if (active != null && active.channel != null) {
      try {
        active.channel.close();
      } catch (IOException e) {
        // Closing after the last force: nothing acknowledged depends on it.
      }
    }
  }

  private void failQueued() {
    List<Op> left = new ArrayList<>();
    Op op;
    while ((op = queue.poll()) != null) {
      left.add(op);
    }
    settle(left, closedError());
  }

  // ---------------------------------------------------------------- recovery

  private void recover() throws JournalException {
    List<Long> numbers = new ArrayList<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "segment-*.rfj")) {
      for (Path p : files) {
        Path name = p.getFileName();
        Long n = name == null ? null : segmentNumber(name.toString());
        if (n != null) {
          numbers.add(n);
        }
      }
    } catch (IOException e) {
      throw new JournalException(Reason.IO, dir, "cannot list the directory: " + e, e);
    }
    numbers.sort(Long::compare);
    LinkedHashMap<String, Recovered> open = new LinkedHashMap<>();
    Map<String, Segment> where = new HashMap<>();
    for (int i = 0; i < numbers.size(); i++) {
      long n = numbers.get(i);
      boolean newest = i == numbers.size() - 1;
      Path path = segmentPath(n);
      Segment s = new Segment(n, path);
      long valid = readSegment(s, newest, open, where);
      s.size = valid;
      if (valid == 0) {
        // The newest segment's header itself was torn: it never held an acknowledged record.
        deleteQuietly(path);
        continue;
      }
      segments.put(n, s);
      nextSegment = n + 1;
    }
    for (Map.Entry<String, Segment> e : where.entrySet()) {
      track(e.getKey(), e.getValue());
    }
    recovered.addAll(open.values());
    long bytes = 0;
    for (Segment s : segments.values()) {
      bytes += s.size;
    }
    synchronized (this) {
      diskBytes = bytes;
      pendingIntents = open.size();
    }
    // Free what is done first (on a full disk that may be what makes room), then check that the
    // directory can be written: a read-only or full disk is reported now, when the client is
    // built, not at the first write.
    reclaim();
    JournalException failure = failure();
    if (failure != null) {
      throw failure;
    }
    try {
      rotate();
    } catch (IOException e) {
      throw new JournalException(
          Reason.IO, dir, "cannot write a segment file (read-only or full disk?): " + e, e);
    }
  }

  /**
   * Reads one segment into {@code open}; returns the length of its valid prefix (0 if even the
   * header of the newest segment is torn). A torn tail of the newest segment is cut off the file.
   */
  private long readSegment(
      Segment s, boolean newest, LinkedHashMap<String, Recovered> open, Map<String, Segment> where)
      throws JournalException {
    byte[] all;
    try {
      all = Files.readAllBytes(s.path);
    } catch (IOException e) {
      throw new JournalException(Reason.IO, s.path, "cannot read: " + e, e);
    }
    int format = headerFormat(all, s.number);
    if (format < 0) {
      if (newest && (all.length <= HEADER_BYTES || allZero(all, 0))) {
        // Torn before its header was forced (a preallocated file may hold zeros only).
        return 0;
      }
      throw new JournalException(Reason.CORRUPT, s.path, "bad segment header");
    }
    int pos = HEADER_BYTES;
    while (pos < all.length) {
      if (format >= 2 && allZero(all, pos)) {
        // The zeros written ahead of the frames: the clean end of a preallocated segment. A frame
        // torn by a crash is never all zeros (it starts with its magic); a frame whose first bytes
        // did not reach the disk but later ones did is not all zeros either, and is cut below.
        break;
      }
      int body = frameAt(all, pos);
      if (body < 0) {
        if (newest && !anyFrameAfter(all, pos + 1)) {
          truncate(s.path, pos);
          return pos;
        }
        throw new JournalException(
            Reason.CORRUPT,
            s.path,
            "frame at offset "
                + pos
                + " fails its checksum or is cut short, and is not the torn tail of a crash");
      }
      try {
        readRecords(ByteBuffer.wrap(all, pos + FRAME_OVERHEAD, body), s, open, where);
      } catch (RuntimeException e) {
        throw new JournalException(
            Reason.CORRUPT, s.path, "frame at offset " + pos + " holds a malformed record", e);
      }
      pos += FRAME_OVERHEAD + body;
    }
    return pos;
  }

  private static void readRecords(
      ByteBuffer b, Segment s, LinkedHashMap<String, Recovered> open, Map<String, Segment> where) {
    while (b.hasRemaining()) {
      byte type = b.get();
      byte[] idb = new byte[ID_BYTES];
      b.get(idb);
      String id = java.util.HexFormat.of().formatHex(idb);
      switch (type) {
        case INTENT -> {
          long created = b.getLong();
          byte[] k = new byte[Short.toUnsignedInt(b.getShort())];
          b.get(k);
          int len = b.getInt();
          if (len < 0 || len > b.remaining()) {
            throw new IllegalArgumentException("value length " + len);
          }
          // The buffer wraps the whole file: its position is the value's offset in the file.
          int at = b.position();
          Location v = new Location(s.number, at, len, crc(b.array(), at, len));
          b.position(at + len);
          open.put(id, new Recovered(id, new String(k, StandardCharsets.UTF_8), v, created, null));
          where.put(id, s);
        }
        case COMMIT -> {
          int len = b.getInt();
          if (len < 0 || len > b.remaining()) {
            throw new IllegalArgumentException("commit length " + len);
          }
          byte[] c = new byte[len];
          b.get(c);
          Recovered r = open.get(id);
          if (r != null) {
            open.put(id, new Recovered(r.id(), r.key(), r.value(), r.createdAtMillis(), c));
          }
        }
        case DONE -> {
          open.remove(id);
          where.remove(id);
        }
        case COMMITS -> {
          int len = b.getInt();
          if (len < 0 || len > b.remaining()) {
            throw new IllegalArgumentException("shared commit length " + len);
          }
          byte[] shared = new byte[len];
          b.get(shared);
          int count = Short.toUnsignedInt(b.getShort());
          for (int i = 0; i < count; i++) {
            byte[] ib = new byte[ID_BYTES];
            b.get(ib);
            String intent = java.util.HexFormat.of().formatHex(ib);
            int ownLen = b.getInt();
            if (ownLen < 0 || ownLen > b.remaining()) {
              throw new IllegalArgumentException("commit length " + ownLen);
            }
            byte[] c = new byte[ownLen + shared.length];
            b.get(c, 0, ownLen);
            System.arraycopy(shared, 0, c, ownLen, shared.length);
            Recovered r = open.get(intent);
            if (r != null) {
              open.put(intent, new Recovered(r.id(), r.key(), r.value(), r.createdAtMillis(), c));
            }
          }
        }
        default -> throw new IllegalArgumentException("record type " + type);
      }
    }
  }

  /** The segment's format (1 or 2) if its header is valid, else -1. */
  private static int headerFormat(byte[] all, long number) {
    if (all.length < HEADER_BYTES) {
      return -1;
    }
    ByteBuffer h = ByteBuffer.wrap(all, 0, HEADER_BYTES);
    byte[] magic = new byte[4];
    h.get(magic);
    CRC32C crc = new CRC32C();
    crc.update(all, 0, 13);
    byte format = h.get();
    boolean valid =
        java.util.Arrays.equals(magic, SEGMENT_MAGIC)
            && (format == 1 || format == FORMAT)
            && h.getLong() == number
            && h.getInt() == (int) crc.getValue();
    return valid ? format : -1;
  }

  /** Whether every byte from {@code from} to the end is zero. */
  private static boolean allZero(byte[] all, int from) {
    for (int i = from; i < all.length; i++) {
      if (all[i] != 0) {
        return false;
      }
    }
    return true;
  }

  /** The body length of a valid frame at {@code pos}, or -1. */
  private static int frameAt(byte[] all, int pos) {
    if (pos + FRAME_OVERHEAD > all.length) {
      return -1;
    }
    for (int i = 0; i < 4; i++) {
      if (all[pos + i] != FRAME_MAGIC[i]) {
        return -1;
      }
    }
    ByteBuffer b = ByteBuffer.wrap(all, pos + 4, 8);
    int body = b.getInt();
    int sum = b.getInt();
    if (body < 0 || body > all.length - pos - FRAME_OVERHEAD) {
      return -1;
    }
    CRC32C crc = new CRC32C();
    crc.update(all, pos + FRAME_OVERHEAD, body);
    return (int) crc.getValue() == sum ? body : -1;
  }

  /** Whether a valid frame starts anywhere at or after {@code from}. */
  private static boolean anyFrameAfter(byte[] all, int from) {
    for (int p = from; p + FRAME_OVERHEAD <= all.length; p++) {
      if (all[p] == FRAME_MAGIC[0] && frameAt(all, p) >= 0) {
        return true;
      }
    }
    return false;
  }

  private static void truncate(Path path, long length) throws JournalException {
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.WRITE)) {
      ch.truncate(length);
      ch.force(true);
    } catch (IOException e) {
      throw new JournalException(Reason.IO, path, "cannot cut off the torn tail: " + e, e);
    }
  }

  private static void deleteQuietly(Path path) throws JournalException {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      throw new JournalException(Reason.IO, path, "cannot delete a torn segment: " + e, e);
    }
  }

  /**
   * {@code segment-} and the number in 16 digits, zero-padded, then {@code .rfj}. Not {@code
   * String.format}: a Formatter and its locale's symbols cost microseconds. {@link #read} once made
   * a name for every value it read back, and a profile of the write-back benchmark (2026-11-29)
   * found 10 % of the client's CPU samples in that formatting; it now names a segment only to open
   * it or to report an error.
   */
  static String segmentName(long number) {
    if (number < 0) {
      throw new IllegalArgumentException("segment number " + number + " is negative");
    }
    String digits = Long.toString(number);
    StringBuilder sb = new StringBuilder(28).append("segment-");
    for (int i = digits.length(); i < 16; i++) {
      sb.append('0');
    }
    return sb.append(digits).append(".rfj").toString();
  }

  private Path segmentPath(long number) {
    return dir.resolve(segmentName(number));
  }

  private static Long segmentNumber(String name) {
    if (!name.startsWith("segment-") || !name.endsWith(".rfj") || name.length() != 28) {
      return null;
    }
    try {
      return Long.parseLong(name.substring(8, 24));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /**
   * A fresh intent id, 32 hex digits: 8 bytes drawn from a random UUID once per process (60 random
   * bits), then 8 bytes of a counter scrambled by a bijection with a second random key, so unique
   * within the process and unrelated across processes (two processes' ids meet only if their random
   * prefixes do). Not a {@code SecureRandom} call per id: that takes a process-wide lock (and reads
   * the kernel's random source) on every write-back, which 64 writer threads queued for
   * (WriteCostBench, design.md "Where an acknowledgement's time goes").
   */
  public static String newId() {
    long n = ID_COUNTER.getAndIncrement();
    byte[] b = new byte[ID_BYTES];
    ByteBuffer.wrap(b).putLong(ID_PREFIX).putLong(scramble(n + ID_KEY));
    return java.util.HexFormat.of().formatHex(b);
  }

  /** A bijection on 64-bit values (each step is invertible), so distinct counters stay distinct. */
  static long scramble(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  /**
   * Drawn once per process from the platform's strong random source ({@link
   * java.util.UUID#randomUUID}, 122 random bits): the prefix (60 of them) and the scrambling key.
   */
  private static final java.util.UUID ID_SEED = java.util.UUID.randomUUID();

  private static final long ID_PREFIX = ID_SEED.getMostSignificantBits();
  private static final long ID_KEY = ID_SEED.getLeastSignificantBits();

  private static final java.util.concurrent.atomic.AtomicLong ID_COUNTER =
      new java.util.concurrent.atomic.AtomicLong();

  private static byte[] idBytes(String id) {
    byte[] b = java.util.HexFormat.of().parseHex(id);
    if (b.length != ID_BYTES) {
      throw new IllegalArgumentException("intent id must be 32 hex digits: " + id);
    }
    return b;
  }
}
