package io.rafestore.clouds;

import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.TaggedGet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A cloud that keeps its objects as files under a local directory: the "local storage" of the
 * paper's Configuration 2, and a durable driver for single-machine deployments and tests.
 *
 * <p><b>Layout.</b> Objects live under {@code <root>/objects/}, one file per object; temporary
 * files live under {@code <root>/tmp/}, so no object name can ever collide with one and a listing
 * never sees one. An object name's {@code /}-separated segments become directories. Because a store
 * may hold both {@code a} and {@code a/b}, a directory made from a segment carries a {@code +}
 * suffix ({@code a/b} is {@code objects/a+/b}); a segment longer than 200 characters is split into
 * directories ending in {@code =} (file names are limited to 255 bytes). Neither character is
 * allowed in an {@link ObjectKey}, so the mapping is injective. On a case-insensitive file system,
 * names that differ only in case share a file.
 *
 * <p><b>Crash safety.</b> A put writes a fresh temporary file, forces it to disk and renames it
 * over the object atomically, so a crash mid-write never leaves a torn object, readers always see
 * one whole version, and of concurrent puts to one name the last rename wins. Temporary files older
 * than {@link #STALE_TEMP_AGE} left by a crashed process are deleted when the cloud is opened.
 * Empty directories left by deletes are kept (removing them would race with puts).
 *
 * <p><b>Conditional gets and puts.</b> An object's tag is the SHA-256 of its bytes, in hex (as
 * {@link MemoryCloud}'s): {@link #getTagged} answers "unchanged" exactly when the file holds the
 * bytes the tag was given for, and {@link #putIfMatch} renames its temporary file into place only
 * while the file still holds them (or, with no tag, only where no file is). The check and the
 * rename are one step against every other put, conditional or not, and every delete of the same
 * name, in this process and in any other sharing the root: each renames or deletes under a lock of
 * the name's stripe (one of {@value #LOCK_STRIPES}), a lock of this JVM taken first and then an
 * advisory lock of the file system on the stripe's file under {@code <root>/locks/} (the JVM lock
 * keeps two threads of one process off one file lock, which the JVM refuses, and lets each close
 * its channel without releasing another thread's lock). Only the rename and the check run under it;
 * the write and the forcing of the temporary file do not. Processes that do not take the lock (an
 * older RafeStore, another program writing the files) are not excluded.
 *
 * <p><b>Threads.</b> File I/O runs on an executor: one given to {@link #open(String, Path,
 * Executor)} (owned by the caller), or by default a small pool of daemon threads owned and shut
 * down by {@link #close()}, which waits (up to 10 s) for the requests handed over before it, so
 * nothing writes under the root once it returns. A request whose future is cancelled before its
 * task starts is skipped; one already running completes on disk and its result is dropped.
 *
 * <p><b>Fault model.</b> Faithful to the file system: I/O errors become {@link CloudException}s
 * naming {@link #id()} ({@link NoSuchFileException} is {@code NOT_FOUND}, {@link
 * AccessDeniedException} is {@code UNAUTHORIZED}, other file-system refusals are {@code OTHER},
 * other I/O errors {@code UNAVAILABLE}). After {@link #close()} every call fails {@code
 * UNAVAILABLE}.
 *
 * <p>Thread-safe; several instances (or processes) may share one root.
 */
public final class DirectoryCloud implements CloudDriver {
  /** Temporary files older than this are assumed abandoned by a crash and removed on open. */
  public static final Duration STALE_TEMP_AGE = Duration.ofMinutes(10);

  /** Threads of the default executor. */
  private static final int DEFAULT_THREADS = 4;

  /** Longest name chunk on disk, leaving room for a marker and staying below 255 bytes. */
  private static final int CHUNK = 200;

  private static final char SEGMENT_DIR = '+';
  private static final char CHUNK_DIR = '=';
  private static final String TEMP_SUFFIX = ".tmp";

  /** Stripes of the lock a rename or delete of one name takes (see the class comment). */
  static final int LOCK_STRIPES = 64;

  /** This JVM's lock of each stripe file, by its real path (shared by instances on one root). */
  private static final java.util.concurrent.ConcurrentHashMap<
          Path, java.util.concurrent.locks.ReentrantLock>
      STRIPES = new java.util.concurrent.ConcurrentHashMap<>();

  private final String id;
  private final Path objects;
  private final Path tmp;

  /** The real path of {@code <root>/locks}, set when the cloud is opened. */
  private Path locks;

  private final Executor executor;
  private final ExecutorService ownedExecutor;
  private volatile boolean closed;

  private DirectoryCloud(String id, Path root, Executor executor, ExecutorService owned) {
    this.id = id;
    this.objects = root.resolve("objects");
    this.tmp = root.resolve("tmp");
    this.locks = root.resolve("locks");
    this.executor = executor;
    this.ownedExecutor = owned;
  }

  /**
   * Opens (creating if needed) a directory cloud with its own small pool of daemon threads, which
   * {@link #close()} shuts down.
   *
   * @throws IOException if the directories cannot be created
   */
  public static DirectoryCloud open(String id, Path root) throws IOException {
    checkId(id);
    Objects.requireNonNull(root, "root");
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            DEFAULT_THREADS,
            DEFAULT_THREADS,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            daemonThreads("rafestore-dir-" + id));
    pool.allowCoreThreadTimeOut(true);
    return owning(id, root, pool);
  }

  /** A directory cloud whose I/O runs on {@code pool}, which it owns and {@link #close()} ends. */
  static DirectoryCloud owning(String id, Path root, ExecutorService pool) throws IOException {
    try {
      return init(new DirectoryCloud(id, root, pool, pool));
    } catch (IOException | RuntimeException e) {
      pool.shutdown();
      throw e;
    }
  }

  /**
   * Opens (creating if needed) a directory cloud whose file I/O runs on {@code executor}, which the
   * caller owns and shuts down. {@code Runnable::run} makes every call synchronous.
   *
   * @throws IOException if the directories cannot be created
   */
  public static DirectoryCloud open(String id, Path root, Executor executor) throws IOException {
    checkId(id);
    Objects.requireNonNull(root, "root");
    Objects.requireNonNull(executor, "executor");
    return init(new DirectoryCloud(id, root, executor, null));
  }

  private static void checkId(String id) {
    Objects.requireNonNull(id, "id");
    if (id.isBlank()) {
      throw new IllegalArgumentException("cloud id must not be blank");
    }
  }

  private static DirectoryCloud init(DirectoryCloud cloud) throws IOException {
    Files.createDirectories(cloud.objects);
    Files.createDirectories(cloud.tmp);
    cloud.locks = Files.createDirectories(cloud.locks).toRealPath();
    cloud.removeStaleTempFiles(Instant.now().minus(STALE_TEMP_AGE));
    return cloud;
  }

  private static ThreadFactory daemonThreads(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  private void removeStaleTempFiles(Instant cutoff) throws IOException {
    FileTime limit = FileTime.from(cutoff);
    try (DirectoryStream<Path> files = Files.newDirectoryStream(tmp)) {
      for (Path file : files) {
        try {
          if (Files.getLastModifiedTime(file).compareTo(limit) < 0) {
            Files.deleteIfExists(file);
          }
        } catch (NoSuchFileException e) {
          // another process cleaned it or renamed it into place: fine
        }
      }
    }
  }

  @Override
  public String id() {
    return id;
  }

  /** The directory holding the objects (for tests and tools). */
  public Path objectsDirectory() {
    return objects;
  }

  /** The directory holding temporary files of puts in progress. */
  public Path tempDirectory() {
    return tmp;
  }

  @Override
  public CompletableFuture<Void> put(ObjectKey key, byte[] data) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(data, "data");
    return io.rafestore.spi.support.Futures.relay(store(key, data, Optional.empty()), x -> null);
  }

  /**
   * A put on the I/O executor ({@link #writeAtomically}); whether it stored. The data is copied
   * first: the write happens later on another thread, and the caller may reuse its array meanwhile.
   */
  private CompletableFuture<Boolean> store(
      ObjectKey key, byte[] data, Optional<Optional<String>> condition) {
    byte[] copy = data.clone();
    return submit(
        () -> {
          try {
            return writeAtomically(key, pathOf(key), copy, condition);
          } catch (NoSuchFileException e) {
            // Our own directories vanished under us: not the caller's missing object.
            throw new CloudException(
                id, CloudException.Kind.UNAVAILABLE, "directory removed during put", e);
          }
        });
  }

  /**
   * Writes {@code data} to a temporary file, forces it, and renames it over {@code target} under
   * the name's lock; with {@code condition} present, only if the file then holds the bytes whose
   * tag it names (an empty tag: only if there is no file). Whether it renamed.
   */
  private boolean writeAtomically(
      ObjectKey key, Path target, byte[] data, Optional<Optional<String>> condition)
      throws IOException {
    Path temp = tmp.resolve(UUID.randomUUID() + TEMP_SUFFIX);
    boolean moved = false;
    try {
      try (FileChannel ch =
          FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        ByteBuffer buf = ByteBuffer.wrap(data);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        ch.force(true);
      }
      // Every object path is objects/..., so it has a parent.
      Path dir = Objects.requireNonNull(target.getParent(), "parent of an object path");
      moved =
          locked(
              key,
              () -> {
                if (condition.isPresent()) {
                  String current = tagOfFile(target);
                  Optional<String> ifMatch = condition.get();
                  if (ifMatch.isEmpty() ? current != null : !ifMatch.get().equals(current)) {
                    return false;
                  }
                }
                Files.createDirectories(dir);
                Files.move(
                    temp,
                    target,
                    StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
                return true;
              });
      if (moved) {
        forceDirectory(dir);
      }
      return moved;
    } finally {
      if (!moved) {
        Files.deleteIfExists(temp);
      }
    }
  }

  /**
   * Runs {@code body} holding the lock of {@code key}'s stripe: this JVM's, then the file system's
   * advisory lock on the stripe's file (see the class comment).
   */
  private <T> T locked(ObjectKey key, IoCall<T> body) throws IOException {
    Path file =
        locks.resolve(Integer.toString(Math.floorMod(key.value().hashCode(), LOCK_STRIPES)));
    java.util.concurrent.locks.ReentrantLock inJvm =
        STRIPES.computeIfAbsent(file, f -> new java.util.concurrent.locks.ReentrantLock());
    inJvm.lock();
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      java.nio.channels.FileLock lock = ch.lock();
      try {
        return body.call();
      } finally {
        lock.release();
      }
    } finally {
      inJvm.unlock();
    }
  }

  /** The tag of the bytes {@code file} holds, or null if there is no file. */
  private static String tagOfFile(Path file) throws IOException {
    try {
      return ContentTags.of(Files.readAllBytes(file));
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  @Override
  public boolean conditionalGets() {
    return true;
  }

  /**
   * Conditional gets with a content tag: the whole file is read (the tag is that of the whole
   * object), and "unchanged" answered exactly when it holds the bytes the tag was given for.
   */
  @Override
  public CompletableFuture<TaggedGet> getTagged(
      ObjectKey key, Optional<ByteRange> range, Optional<String> ifNoneMatch) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(range, "range");
    Objects.requireNonNull(ifNoneMatch, "ifNoneMatch");
    return submit(
        () -> {
          byte[] whole;
          try {
            whole = Files.readAllBytes(pathOf(key));
          } catch (NoSuchFileException e) {
            throw CloudException.notFound(id, key);
          }
          return ContentTags.answer(whole, range, ifNoneMatch, true);
        });
  }

  @Override
  public boolean conditionalPuts() {
    return true;
  }

  /**
   * Conditional puts against the content tag {@link #getTagged} gives: the check and the rename are
   * one step under the name's lock (see the class comment).
   */
  @Override
  public CompletableFuture<Boolean> putIfMatch(
      ObjectKey key, byte[] data, Optional<String> ifMatch) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(data, "data");
    Objects.requireNonNull(ifMatch, "ifMatch");
    return store(key, data, Optional.of(ifMatch));
  }

  /** Makes the rename durable where the platform allows syncing a directory (not on Windows). */
  private static void forceDirectory(Path dir) {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException | UnsupportedOperationException e) {
      // Best effort: the data itself is on disk; only the name may be lost in a power failure.
    }
  }

  @Override
  public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(range, "range");
    return submit(
        () -> {
          try {
            return read(pathOf(key), range);
          } catch (NoSuchFileException e) {
            throw CloudException.notFound(id, key);
          }
        });
  }

  private byte[] read(Path file, Optional<ByteRange> range) throws IOException {
    // An open channel keeps reading the version it opened even if a put renames a new one over it.
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = ch.size();
      long from = 0;
      long to = size;
      if (range.isPresent()) {
        long[] span = range.get().clip(size);
        from = span[0];
        to = span[1];
      }
      long length = to - from;
      if (length > Integer.MAX_VALUE - 8) {
        throw new FileSystemException(file.toString(), null, "object too large to read at once");
      }
      ByteBuffer buf = ByteBuffer.allocate((int) length);
      long position = from;
      while (buf.hasRemaining()) {
        int n = ch.read(buf, position);
        if (n < 0) {
          break; // cannot happen with rename-only updates; return what is there
        }
        position += n;
      }
      if (buf.hasRemaining()) {
        throw new IOException("file " + file + " shrank while being read");
      }
      return buf.array();
    }
  }

  @Override
  public CompletableFuture<Void> delete(ObjectKey key) {
    Objects.requireNonNull(key, "key");
    return submit(
        () ->
            locked(
                key,
                () -> {
                  Files.deleteIfExists(pathOf(key));
                  return null;
                }));
  }

  @Override
  public CompletableFuture<List<ObjectInfo>> list(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    return submit(() -> walk(prefix));
  }

  private List<ObjectInfo> walk(String prefix) throws IOException {
    // Only the directory of the prefix's complete segments can hold matches.
    int lastSlash = prefix.lastIndexOf('/');
    Path start = objects;
    if (lastSlash > 0) {
      try {
        start = directoryOf(prefix.substring(0, lastSlash));
      } catch (IllegalArgumentException e) {
        return List.of(); // not a valid name prefix, so no object can match
      }
    }
    if (!Files.isDirectory(start)) {
      return List.of();
    }
    List<ObjectInfo> out = new ArrayList<>();
    Files.walkFileTree(
        start,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
            if (attrs.isRegularFile()) {
              String name = nameOf(file);
              if (name != null && name.startsWith(prefix)) {
                out.add(new ObjectInfo(ObjectKey.of(name), attrs.size()));
              }
            }
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
            if (e instanceof NoSuchFileException) {
              return FileVisitResult.CONTINUE; // deleted while we walked: not listed
            }
            throw e;
          }
        });
    out.sort(Comparator.comparing(ObjectInfo::key));
    return out;
  }

  /** The file of an object. */
  private Path pathOf(ObjectKey key) {
    String[] segments = key.value().split("/");
    Path p = objects;
    for (int i = 0; i < segments.length; i++) {
      p = appendSegment(p, segments[i], i < segments.length - 1);
    }
    return p;
  }

  /** The directory holding objects whose names start with {@code dirName + "/"}. */
  private Path directoryOf(String dirName) {
    ObjectKey.of(dirName); // validates the alphabet and segments
    Path p = objects;
    for (String segment : dirName.split("/")) {
      p = appendSegment(p, segment, true);
    }
    return p;
  }

  private static Path appendSegment(Path p, String segment, boolean isDirectory) {
    int at = 0;
    while (segment.length() - at > CHUNK) {
      p = p.resolve(segment.substring(at, at + CHUNK) + CHUNK_DIR);
      at += CHUNK;
    }
    String last = segment.substring(at);
    return p.resolve(isDirectory ? last + SEGMENT_DIR : last);
  }

  /** The object name of a file under {@code objects}, or null if it is not one of ours. */
  private String nameOf(Path file) {
    Path rel = objects.relativize(file);
    StringBuilder name = new StringBuilder();
    int n = rel.getNameCount();
    for (int i = 0; i < n; i++) {
      String part = rel.getName(i).toString();
      if (i == n - 1) {
        name.append(part);
      } else if (part.endsWith(String.valueOf(CHUNK_DIR))) {
        name.append(part, 0, part.length() - 1);
      } else if (part.endsWith(String.valueOf(SEGMENT_DIR))) {
        name.append(part, 0, part.length() - 1).append('/');
      } else {
        return null;
      }
    }
    try {
      ObjectKey.of(name.toString());
      return name.toString();
    } catch (IllegalArgumentException e) {
      return null; // a stray file someone else put there
    }
  }

  @FunctionalInterface
  private interface IoCall<T> {
    T call() throws IOException;
  }

  private <T> CompletableFuture<T> submit(IoCall<T> call) {
    if (closed) {
      return CompletableFuture.failedFuture(closedException());
    }
    CompletableFuture<T> result = new CompletableFuture<>();
    Runnable task =
        () -> {
          if (result.isDone()) {
            return; // cancelled before it started
          }
          if (closed) {
            result.completeExceptionally(closedException());
            return;
          }
          RUNNING.set(this);
          try {
            result.complete(call.call());
          } catch (IOException e) {
            result.completeExceptionally(translate(e));
          } catch (UncheckedIOException e) {
            result.completeExceptionally(translate(e.getCause()));
          } catch (RuntimeException e) {
            result.completeExceptionally(
                new CloudException(id, CloudException.Kind.OTHER, "unexpected failure", e));
          } finally {
            RUNNING.remove();
          }
        };
    try {
      executor.execute(task);
    } catch (RejectedExecutionException e) {
      result.completeExceptionally(
          new CloudException(
              id, CloudException.Kind.UNAVAILABLE, "executor rejected the request", e));
    }
    return result;
  }

  private CloudException translate(IOException e) {
    if (e instanceof CloudException) {
      return (CloudException) e;
    }
    if (e instanceof NoSuchFileException) {
      return new CloudException(
          id, CloudException.Kind.NOT_FOUND, "no such file: " + e.getMessage(), e);
    }
    if (e instanceof AccessDeniedException) {
      return new CloudException(
          id, CloudException.Kind.UNAUTHORIZED, "access denied: " + e.getMessage(), e);
    }
    if (e instanceof FileSystemException) {
      return new CloudException(id, CloudException.Kind.OTHER, String.valueOf(e.getMessage()), e);
    }
    return new CloudException(
        id, CloudException.Kind.UNAVAILABLE, String.valueOf(e.getMessage()), e);
  }

  private CloudException closedException() {
    return new CloudException(id, CloudException.Kind.UNAVAILABLE, "driver is closed");
  }

  /**
   * Stops accepting requests; queued ones fail, running ones finish. Shuts down the default
   * executor if this cloud owns it. Idempotent.
   */
  @Override
  public void close() {
    closed = true;
    if (ownedExecutor != null) {
      ownedExecutor.shutdown();
      // Requests handed over before close still run (a put's task completes on disk); close
      // returns once they have, so nothing writes under the root after it (a caller may then
      // remove the directory). Bounded: file operations are short.
      if (RUNNING.get() == this) {
        // Closed from one of its own requests (a callback run as the request completed): waiting
        // for the pool would wait for this very task.
        return;
      }
      try {
        if (!ownedExecutor.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
          ownedExecutor.shutdownNow();
        }
      } catch (InterruptedException e) {
        ownedExecutor.shutdownNow();
        Thread.currentThread().interrupt();
      }
    }
  }

  /** The cloud whose request this thread is running, if any (see {@link #close()}). */
  private static final ThreadLocal<DirectoryCloud> RUNNING = new ThreadLocal<>();

  /** How long {@link #close()} waits for file operations handed over before it. */
  static final java.time.Duration CLOSE_WAIT = java.time.Duration.ofSeconds(10);

  @Override
  public String toString() {
    return "DirectoryCloud[" + id + ", " + objects.getParent() + "]";
  }
}
