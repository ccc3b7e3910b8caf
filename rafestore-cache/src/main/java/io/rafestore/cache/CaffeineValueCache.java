package io.rafestore.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import io.rafestore.CacheEvent;
import io.rafestore.ValueCache;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * RafeStore's {@link ValueCache}: units of verified stored bytes in memory, bounded by bytes, with
 * Caffeine's W-TinyLFU eviction (a frequency sketch admits a new unit only if it is likelier to be
 * used than the one it would evict, so a scan of values read once does not flush the ones read
 * again and again); and optionally a local directory, bounded by bytes the same way, that survives
 * a restart.
 *
 * <pre>{@code
 * RafeStore store = RafeStore.builder()
 *     ...
 *     .valueCache(CaffeineValueCache.builder()
 *         .maximumBytes(256L << 20)
 *         .directory(Path.of("/var/cache/rafestore"), 4L << 30)
 *         .build())
 *     .build();
 * }</pre>
 *
 * <p><b>Files.</b> One file per unit, named by the SHA-256 of the unit's identity ({@link
 * UnitFile}); written to a temporary name and moved into place, so a crash leaves no half file
 * under a unit's name. At start the directory's files are indexed from their headers: a file whose
 * header is not a unit of this format, or names another unit than its file name says, is {@link
 * CacheEvent.Kind#FOREIGN}; one whose length disagrees with its header is {@link
 * CacheEvent.Kind#TRUNCATED}. When a unit is loaded its bytes are checked against the signed
 * SHA-256 its header and the caller's unit both carry ({@link CacheEvent.Kind#CORRUPT} if not).
 * Every such file is deleted and reported to the client's listener, never served (and the client
 * checks every byte it gets from any cache once more). The directory is locked ({@code .lock}): one
 * process at a time.
 *
 * <p>Memory puts are synchronous: after {@link #put} returns, the memory tier is within its bound
 * (Caffeine's maintenance runs on the caller's thread). Disk writes run on one background thread of
 * this cache and never delay a read; a unit is on disk (and counted there) once written.
 *
 * <p>Thread-safe. Serves one client ({@link #bind} refuses a second). {@link #close} stops the disk
 * writer and releases the directory's lock.
 */
public final class CaffeineValueCache implements ValueCache, AutoCloseable {
  private final long maximumBytes;

  /** The most bytes of protected units: a share of {@link #maximumBytes}. */
  private final long protectedBytes;

  /**
   * Units put by {@link #putProtected}, evicted among themselves (W-TinyLFU, bounded by {@link
   * #protectedBytes}); {@link #memory}'s bound is what they leave of {@link #maximumBytes}.
   */
  private final Cache<Unit, byte[]> protectedUnits;

  private final Cache<Unit, byte[]> memory;
  private final Path directory;
  private final long maximumDiskBytes;
  private final Cache<Unit, Long> disk;
  private final ExecutorService writer;
  private final FileChannel lockChannel;
  private final FileLock lock;
  private final List<CacheEvent> early = new ArrayList<>();
  private Consumer<CacheEvent> events;

  private CaffeineValueCache(Builder b) throws IOException {
    this.maximumBytes = b.maximumBytes;
    this.protectedBytes = (long) (b.maximumBytes * b.protectedShare);
    this.protectedUnits =
        Caffeine.newBuilder()
            .maximumWeight(Math.max(0, protectedBytes))
            .weigher((Unit u, byte[] v) -> v.length)
            .executor(Runnable::run)
            .build();
    this.memory =
        Caffeine.newBuilder()
            .maximumWeight(b.maximumBytes)
            .weigher((Unit u, byte[] v) -> v.length)
            .executor(Runnable::run)
            .build();
    this.directory = b.directory;
    this.maximumDiskBytes = b.maximumDiskBytes;
    if (directory == null) {
      this.disk = null;
      this.writer = null;
      this.lockChannel = null;
      this.lock = null;
      return;
    }
    Files.createDirectories(directory);
    this.lockChannel =
        FileChannel.open(
            directory.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock l;
    try {
      l = lockChannel.tryLock();
    } catch (OverlappingFileLockException e) {
      l = null;
    }
    if (l == null) {
      lockChannel.close();
      throw new IllegalStateException(
          "cache directory " + directory + " is in use by another cache (its .lock is held)");
    }
    this.lock = l;
    this.disk =
        Caffeine.newBuilder()
            .maximumWeight(maximumDiskBytes)
            .weigher((Unit u, Long size) -> (int) Math.min(Integer.MAX_VALUE, size))
            .executor(Runnable::run)
            .removalListener(
                (Unit u, Long size, RemovalCause cause) -> {
                  if (u != null && cause != RemovalCause.REPLACED) {
                    deleteQuietly(UnitFile.path(directory, u));
                  }
                })
            .build();
    this.writer =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "rafestore-cache-writer");
              t.setDaemon(true);
              return t;
            });
    index();
  }

  /** A new builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** Indexes the directory's unit files from their headers; drops what is not one. */
  private void index() throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        String name = String.valueOf(p.getFileName());
        if (name.equals(".lock")) {
          continue;
        }
        if (name.endsWith(UnitFile.TEMP_SUFFIX)) {
          // A write that did not finish (a crash): never a unit.
          deleteQuietly(p);
          continue;
        }
        UnitFile.Header h;
        try {
          h = UnitFile.readHeader(p);
        } catch (UnitFile.BadFileException e) {
          drop(p, e.kind, e.key, e.getMessage());
          continue;
        } catch (IOException e) {
          drop(p, CacheEvent.Kind.IO_ERROR, "", "cannot read " + name + ": " + e);
          continue;
        }
        disk.put(h.unit(), Files.size(p));
      }
    }
  }

  private void drop(Path p, CacheEvent.Kind kind, String key, String detail) {
    deleteQuietly(p);
    report(new CacheEvent(kind, key, detail + "; dropped " + p.getFileName()));
  }

  private void report(CacheEvent e) {
    Consumer<CacheEvent> to;
    synchronized (this) {
      to = events;
      if (to == null) {
        early.add(e);
        return;
      }
    }
    to.accept(e);
  }

  @Override
  public void bind(Consumer<CacheEvent> events) {
    Objects.requireNonNull(events, "events");
    List<CacheEvent> found;
    synchronized (this) {
      if (this.events != null) {
        throw new IllegalStateException(
            "this cache serves another client already; build one cache per client");
      }
      this.events = events;
      found = List.copyOf(early);
      early.clear();
    }
    found.forEach(events);
  }

  @Override
  public Optional<byte[]> get(Unit unit) {
    byte[] b = memory.getIfPresent(unit);
    if (b == null) {
      b = protectedUnits.getIfPresent(unit);
    }
    if (b != null) {
      return Optional.of(b.clone());
    }
    if (disk == null || disk.getIfPresent(unit) == null) {
      return Optional.empty();
    }
    Path p = UnitFile.path(directory, unit);
    byte[] loaded;
    try {
      loaded = UnitFile.read(p, unit);
    } catch (UnitFile.BadFileException e) {
      disk.invalidate(unit);
      drop(p, e.kind, unit.key(), e.getMessage());
      return Optional.empty();
    } catch (IOException e) {
      disk.invalidate(unit);
      report(
          new CacheEvent(
              CacheEvent.Kind.IO_ERROR, unit.key(), "cannot read " + p.getFileName() + ": " + e));
      return Optional.empty();
    }
    memory.put(unit, loaded);
    return Optional.of(loaded.clone());
  }

  @Override
  public boolean contains(Unit unit) {
    return memory.asMap().containsKey(unit)
        || protectedUnits.asMap().containsKey(unit)
        || (disk != null && disk.asMap().containsKey(unit));
  }

  @Override
  public void put(Unit unit, byte[] bytes) {
    Objects.requireNonNull(unit, "unit");
    if (bytes.length != unit.size()) {
      throw new IllegalArgumentException(
          unit + " is " + unit.size() + " bytes, " + bytes.length + " given");
    }
    byte[] copy = bytes.clone();
    if (protectedUnits.asMap().containsKey(unit)) {
      protectedUnits.put(unit, copy);
    } else {
      memory.put(unit, copy);
    }
    toDisk(unit, copy);
  }

  /**
   * Keeps the unit in the protected share ({@link Builder#protectedShare}): among the units put
   * there, Caffeine's W-TinyLFU decides which stay within the share's bytes; the units put by
   * {@link #put} have the rest of the bound, so they never displace these. A unit the share evicts
   * is gone (a read fetching it again puts it there again).
   */
  @Override
  public void putProtected(Unit unit, byte[] bytes) {
    Objects.requireNonNull(unit, "unit");
    if (bytes.length != unit.size()) {
      throw new IllegalArgumentException(
          unit + " is " + unit.size() + " bytes, " + bytes.length + " given");
    }
    if (protectedBytes < bytes.length) {
      put(unit, bytes);
      return;
    }
    byte[] copy = bytes.clone();
    memory.invalidate(unit);
    protectedUnits.put(unit, copy);
    resize();
    toDisk(unit, copy);
  }

  /** Moves {@code unit} from the rest of memory to the protected share, if it is there. */
  @Override
  public void protect(Unit unit) {
    if (protectedBytes < unit.size()) {
      return;
    }
    byte[] b = memory.asMap().remove(unit);
    if (b == null) {
      return;
    }
    protectedUnits.put(unit, b);
    resize();
  }

  /**
   * The memory tier's bound: what the protected share's units leave of {@link #maximumBytes}, so
   * that the share is taken from the rest only as far as it is used.
   */
  private void resize() {
    protectedUnits.cleanUp();
    long used = protectedUnits.policy().eviction().orElseThrow().weightedSize().orElse(0);
    memory.policy().eviction().orElseThrow().setMaximum(Math.max(0, maximumBytes - used));
  }

  private void toDisk(Unit unit, byte[] copy) {
    if (disk != null && !disk.asMap().containsKey(unit) && unit.size() <= maximumDiskBytes) {
      try {
        writer.execute(() -> write(unit, copy));
      } catch (java.util.concurrent.RejectedExecutionException e) {
        // Closed: the unit stays in memory only.
      }
    }
  }

  private void write(Unit unit, byte[] bytes) {
    Path p = UnitFile.path(directory, unit);
    try {
      UnitFile.write(p, unit, bytes);
      disk.put(unit, Files.size(p));
    } catch (IOException | RuntimeException e) {
      report(
          new CacheEvent(
              CacheEvent.Kind.IO_ERROR, unit.key(), "cannot write " + p.getFileName() + ": " + e));
    }
  }

  @Override
  public void remove(Unit unit) {
    memory.invalidate(unit);
    if (protectedUnits.asMap().remove(unit) != null) {
      resize();
    }
    if (disk != null) {
      disk.invalidate(unit);
    }
  }

  @Override
  public long weightedBytes() {
    return memoryBytes() + diskBytes();
  }

  /** Bytes held in memory now (at most {@link Builder#maximumBytes}). */
  public long memoryBytes() {
    return memory.policy().eviction().orElseThrow().weightedSize().orElse(0)
        + protectedUnits.policy().eviction().orElseThrow().weightedSize().orElse(0);
  }

  /** Bytes held on disk now (at most the directory's bound); 0 without a directory. */
  public long diskBytes() {
    return disk == null ? 0 : disk.policy().eviction().orElseThrow().weightedSize().orElse(0);
  }

  /** Whether {@code bytes} more fit in memory now without evicting anything. */
  @Override
  public boolean hasRoom(long bytes) {
    return memoryBytes() + bytes <= maximumBytes;
  }

  /** The memory bound. */
  public long maximumBytes() {
    return maximumBytes;
  }

  /** Waits up to {@code timeout} for the disk writes queued so far (for tests and shutdown). */
  public void flush(java.time.Duration timeout) throws InterruptedException {
    if (writer == null) {
      return;
    }
    java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
    try {
      writer.execute(done::countDown);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      return;
    }
    if (!done.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
      // The writes still queued finish later; flush promises only to wait up to the timeout.
      return;
    }
  }

  /** Finishes queued disk writes (up to 10 s), stops the writer, releases the directory. */
  @Override
  public void close() {
    if (writer == null) {
      return;
    }
    writer.shutdown();
    try {
      writer.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      lock.release();
      lockChannel.close();
    } catch (IOException e) {
      // Released by the process's exit at the latest.
    }
  }

  private static void deleteQuietly(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException e) {
      // A file that cannot be deleted is not indexed, so never served.
    }
  }

  /** The settings of a {@link CaffeineValueCache}; {@link #build} checks them. Not thread-safe. */
  public static final class Builder {
    private long maximumBytes = 64L * 1024 * 1024;
    private Path directory;
    private long maximumDiskBytes;
    private double protectedShare = 0.25;

    private Builder() {}

    /**
     * The share of {@link #maximumBytes} kept for units a read fetched again after this cache had
     * evicted them ({@link ValueCache#putProtected}), which other units do not displace (default
     * 0.25; 0 to treat them as any other; at most 0.9).
     */
    public Builder protectedShare(double share) {
      this.protectedShare = share;
      return this;
    }

    /** The most bytes of units kept in memory (default 64 MiB; at least 1 KiB). */
    public Builder maximumBytes(long bytes) {
      this.maximumBytes = bytes;
      return this;
    }

    /**
     * Also keeps units in {@code dir} (created if missing), at most {@code maximumDiskBytes} bytes
     * of files, so they survive a restart.
     */
    public Builder directory(Path dir, long maximumDiskBytes) {
      this.directory = Objects.requireNonNull(dir, "directory");
      this.maximumDiskBytes = maximumDiskBytes;
      return this;
    }

    /**
     * Builds the cache; with a directory, indexes its files and locks it.
     *
     * @throws IllegalArgumentException naming a bound out of range
     * @throws IllegalStateException if another cache holds the directory
     * @throws java.io.UncheckedIOException if the directory cannot be created or read
     */
    public CaffeineValueCache build() {
      if (maximumBytes < 1024) {
        throw new IllegalArgumentException(
            "maximumBytes must be at least 1024 bytes, was " + maximumBytes);
      }
      if (!(protectedShare >= 0 && protectedShare <= 0.9)) {
        throw new IllegalArgumentException(
            "protectedShare must be between 0 and 0.9, was " + protectedShare);
      }
      if (directory != null && maximumDiskBytes < 1024) {
        throw new IllegalArgumentException(
            "directory "
                + directory
                + ": maximumDiskBytes must be at least 1024, was "
                + maximumDiskBytes);
      }
      try {
        return new CaffeineValueCache(this);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException("cache directory " + directory + ": " + e, e);
      }
    }
  }
}
