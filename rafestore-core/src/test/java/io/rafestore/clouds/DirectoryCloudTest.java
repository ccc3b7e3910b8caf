package io.rafestore.clouds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.rafestore.spi.CloudException;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectoryCloudTest {
  private static final ObjectKey KEY = ObjectKey.of("k");

  @TempDir Path root;

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static CloudException failure(CompletableFuture<?> f) {
    try {
      f.join();
    } catch (CompletionException e) {
      assertThat(e.getCause()).isInstanceOf(CloudException.class);
      return (CloudException) e.getCause();
    }
    throw new AssertionError("expected a failure");
  }

  @Test
  void closeReturnsOnlyAfterTheRequestsHandedOverBeforeIt() throws Exception {
    // A request still running when close is called (here its task lingers 300 ms after its
    // write): close returns only once it has ended, so nothing runs under the root after close (a
    // caller, such as a test's temporary directory, may remove it at once).
    java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
    ExecutorService pool =
        new java.util.concurrent.ThreadPoolExecutor(
            1, 1, 0, TimeUnit.SECONDS, new java.util.concurrent.LinkedBlockingQueue<>()) {
          @Override
          public void execute(Runnable command) {
            super.execute(
                () -> {
                  started.countDown();
                  command.run();
                  try {
                    Thread.sleep(300);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                });
          }
        };
    DirectoryCloud c = DirectoryCloud.owning("d", root, pool);
    CompletableFuture<Void> put = c.put(ObjectKey.of("k"), new byte[] {1, 2, 3});
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    c.close();
    assertThat(pool.isTerminated()).as("close waited for the running request").isTrue();
    assertThat(put).isDone();
    List<String> atClose = snapshot(root);
    Thread.sleep(50);
    assertThat(snapshot(root)).isEqualTo(atClose);
  }

  @Test
  void closingFromACallbackOfItsOwnRequestDoesNotWaitForItself() throws Exception {
    DirectoryCloud c = DirectoryCloud.open("d", root);
    long[] took = new long[1];
    c.put(ObjectKey.of("k"), new byte[] {1})
        .whenComplete(
            (r, e) -> {
              long t0 = System.nanoTime();
              c.close();
              took[0] = System.nanoTime() - t0;
            })
        .get(10, TimeUnit.SECONDS);
    assertThat(Duration.ofNanos(took[0])).isLessThan(Duration.ofSeconds(5));
  }

  private static List<String> snapshot(Path dir) throws java.io.IOException {
    try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
      List<String> out = new ArrayList<>();
      for (Path p : (Iterable<Path>) files.sorted()::iterator) {
        out.add(dir.relativize(p) + (Files.isRegularFile(p) ? ":" + Files.size(p) : ""));
      }
      return out;
    }
  }

  @Test
  void leftoverTempFilesAreNeverListedOrRead() throws Exception {
    DirectoryCloud cloud = DirectoryCloud.open("d", root, Runnable::run);
    cloud.put(KEY, bytes("whole")).join();
    // What a crash in the middle of a put leaves behind: a partial temp file.
    Files.write(cloud.tempDirectory().resolve("crashed.tmp"), bytes("wh"));

    assertThat(cloud.list("").join()).containsExactly(new ObjectInfo(KEY, 5));
    assertThat(cloud.get(KEY).join()).isEqualTo(bytes("whole"));
    assertThat(failure(cloud.get(ObjectKey.of("crashed.tmp"))).kind())
        .isEqualTo(CloudException.Kind.NOT_FOUND);
  }

  @Test
  void staleTempFilesAreRemovedOnOpenAndFreshOnesKept() throws Exception {
    DirectoryCloud first = DirectoryCloud.open("d", root, Runnable::run);
    Path stale = first.tempDirectory().resolve("old.tmp");
    Path fresh = first.tempDirectory().resolve("new.tmp");
    Files.write(stale, bytes("x"));
    Files.write(fresh, bytes("y"));
    Files.setLastModifiedTime(stale, FileTime.from(Instant.now().minus(Duration.ofHours(2))));
    first.close();

    DirectoryCloud.open("d", root, Runnable::run).close();

    assertThat(stale).doesNotExist();
    assertThat(fresh).exists(); // may belong to a put running in another process
  }

  @Test
  void putsLeaveNoTempFilesBehind() throws Exception {
    DirectoryCloud cloud = DirectoryCloud.open("d", root, Runnable::run);
    for (int i = 0; i < 10; i++) {
      cloud.put(ObjectKey.of("k" + i), new byte[i * 100]).join();
    }

    try (var files = Files.list(cloud.tempDirectory())) {
      assertThat(files).isEmpty();
    }
  }

  @Test
  void concurrentWritersToOneKeyAlwaysLeaveOneCompleteValue() throws Exception {
    DirectoryCloud cloud = DirectoryCloud.open("d", root);
    int writers = 4;
    int size = 64 * 1024;
    cloud.put(KEY, filled(0, size)).join();
    ExecutorService pool = Executors.newFixedThreadPool(writers + 1);
    AtomicBoolean writing = new AtomicBoolean(true);
    List<String> tornReads = new ArrayList<>();
    try {
      List<Future<?>> tasks = new ArrayList<>();
      for (int w = 1; w <= writers; w++) {
        int id = w;
        tasks.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 15; i++) {
                    cloud.put(KEY, filled(id, size)).join();
                  }
                }));
      }
      Future<?> reader =
          pool.submit(
              () -> {
                while (writing.get()) {
                  byte[] read = cloud.get(KEY).join();
                  if (read.length != size || !uniform(read)) {
                    synchronized (tornReads) {
                      tornReads.add("length " + read.length);
                    }
                  }
                }
              });
      for (Future<?> t : tasks) {
        t.get(60, TimeUnit.SECONDS);
      }
      writing.set(false);
      reader.get(60, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
      cloud.close();
    }

    assertThat(tornReads).isEmpty();
    DirectoryCloud again = DirectoryCloud.open("d", root, Runnable::run);
    byte[] last = again.get(KEY).join();
    assertThat(last).hasSize(size);
    assertThat(uniform(last)).isTrue();
    assertThat(last[0]).isBetween((byte) 1, (byte) writers);
    try (var files = Files.list(again.tempDirectory())) {
      assertThat(files).isEmpty();
    }
  }

  private static byte[] filled(int value, int size) {
    byte[] b = new byte[size];
    Arrays.fill(b, (byte) value);
    return b;
  }

  private static boolean uniform(byte[] b) {
    for (byte x : b) {
      if (x != b[0]) {
        return false;
      }
    }
    return true;
  }

  @Test
  void objectAndPseudoDirectoryOfTheSameNameCoexist() throws Exception {
    DirectoryCloud cloud = DirectoryCloud.open("d", root, Runnable::run);
    cloud.put(ObjectKey.of("a"), bytes("file")).join();
    cloud.put(ObjectKey.of("a/b"), bytes("nested")).join();

    assertThat(cloud.objectsDirectory().resolve("a")).isRegularFile();
    assertThat(cloud.objectsDirectory().resolve("a+").resolve("b")).isRegularFile();
    assertThat(cloud.get(ObjectKey.of("a")).join()).isEqualTo(bytes("file"));
    assertThat(cloud.get(ObjectKey.of("a/b")).join()).isEqualTo(bytes("nested"));
  }

  @Test
  void strayFilesUnderObjectsAreIgnored() throws Exception {
    DirectoryCloud cloud = DirectoryCloud.open("d", root, Runnable::run);
    cloud.put(KEY, bytes("v")).join();
    Path objects = cloud.objectsDirectory();
    Files.createDirectories(objects.resolve("plain-dir"));
    Files.write(objects.resolve("plain-dir").resolve("f"), bytes("?"));
    Files.write(objects.resolve("has space"), bytes("?"));

    assertThat(cloud.list("").join()).containsExactly(new ObjectInfo(KEY, 1));
  }

  @Test
  void objectsSurviveReopening() throws Exception {
    DirectoryCloud cloud = DirectoryCloud.open("d", root, Runnable::run);
    cloud.put(ObjectKey.of("x/y"), bytes("kept")).join();
    cloud.close();

    DirectoryCloud reopened = DirectoryCloud.open("d", root, Runnable::run);

    assertThat(reopened.get(ObjectKey.of("x/y")).join()).isEqualTo(bytes("kept"));
  }

  @Test
  void requestCancelledBeforeItStartsIsSkipped() throws Exception {
    Queue<Runnable> queued = new ArrayDeque<>();
    DirectoryCloud cloud = DirectoryCloud.open("d", root, queued::add);

    CompletableFuture<Void> put = cloud.put(KEY, bytes("never"));
    put.cancel(true);
    queued.forEach(Runnable::run);

    assertThat(put).isCancelled();
    assertThat(cloud.objectsDirectory().resolve("k")).doesNotExist();
  }

  @Test
  void queuedRequestsFailOnceClosed() throws Exception {
    Queue<Runnable> queued = new ArrayDeque<>();
    DirectoryCloud cloud = DirectoryCloud.open("d", root, queued::add);

    CompletableFuture<Void> put = cloud.put(KEY, bytes("late"));
    cloud.close();
    queued.forEach(Runnable::run);

    CloudException e = failure(put);
    assertThat(e.kind()).isEqualTo(CloudException.Kind.UNAVAILABLE);
    assertThat(e.cloudId()).isEqualTo("d");
    assertThat(cloud.objectsDirectory().resolve("k")).doesNotExist();
  }

  @Test
  void rejectedRequestsFailUnavailable() throws Exception {
    DirectoryCloud cloud =
        DirectoryCloud.open(
            "d",
            root,
            r -> {
              throw new RejectedExecutionException("full");
            });

    assertThat(failure(cloud.get(KEY)).kind()).isEqualTo(CloudException.Kind.UNAVAILABLE);
  }

  @Test
  void permissionProblemsAreUnauthorized() throws Exception {
    assumeThat(System.getProperty("user.name"))
        .as("root ignores file permissions")
        .isNotEqualTo("root");
    DirectoryCloud cloud = DirectoryCloud.open("d", root, Runnable::run);
    cloud.put(KEY, bytes("secret")).join();
    Path file = cloud.objectsDirectory().resolve("k");
    assumeThat(file.getFileSystem().supportedFileAttributeViews()).contains("posix");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("---------"));
    try {
      CloudException e = failure(cloud.get(KEY));
      assertThat(e.kind()).isEqualTo(CloudException.Kind.UNAUTHORIZED);
      assertThat(e.cloudId()).isEqualTo("d");
    } finally {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    }
  }

  @Test
  void openRejectsBadArguments() {
    assertThatThrownBy(() -> DirectoryCloud.open(" ", root))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cloud id must not be blank");
  }

  @Test
  void conditionalPutsFromTwoInstancesOnOneRootStoreExactlyOnce() throws Exception {
    // Two clouds on one root, as two clients of one machine open it: eight racing conditional puts
    // with the tag both read, four from each, and exactly one lands.
    try (DirectoryCloud a = DirectoryCloud.open("a", root);
        DirectoryCloud b = DirectoryCloud.open("b", root)) {
      a.put(KEY, bytes("v0")).join();
      // Rounds of eight, each against the tag of what the last round stored.
      for (int round = 0; round < 20; round++) {
        String tag =
            b.getTagged(KEY, java.util.Optional.empty(), java.util.Optional.empty())
                .join()
                .tag()
                .orElseThrow();
        assertThat(
                a.getTagged(KEY, java.util.Optional.empty(), java.util.Optional.empty())
                    .join()
                    .tag()
                    .orElseThrow())
            .isEqualTo(tag);
        List<CompletableFuture<Boolean>> racers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
          DirectoryCloud c = i % 2 == 0 ? a : b;
          racers.add(c.putIfMatch(KEY, bytes("r" + round + "." + i), java.util.Optional.of(tag)));
        }
        List<String> won = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
          if (racers.get(i).join()) {
            won.add("r" + round + "." + i);
          }
        }
        assertThat(won).as("round %d", round).hasSize(1);
        assertThat(new String(b.get(KEY).join(), StandardCharsets.UTF_8)).isEqualTo(won.get(0));
      }
      // A plain put through one instance makes the other's tag stale.
      String now =
          a.getTagged(KEY, java.util.Optional.empty(), java.util.Optional.empty())
              .join()
              .tag()
              .orElseThrow();
      b.put(KEY, bytes("plain")).join();
      assertThat(a.putIfMatch(KEY, bytes("late"), java.util.Optional.of(now)).join()).isFalse();
      assertThat(new String(a.get(KEY).join(), StandardCharsets.UTF_8)).isEqualTo("plain");
      // And a delete through one makes "only if absent" succeed through the other, once.
      a.delete(KEY).join();
      assertThat(b.putIfMatch(KEY, bytes("fresh"), java.util.Optional.empty()).join()).isTrue();
      assertThat(a.putIfMatch(KEY, bytes("again"), java.util.Optional.empty()).join()).isFalse();
    }
  }

  @Test
  void aRenameWaitsForAnotherProcessHoldingTheNamesLock() throws Exception {
    // Another process (Python, taking the same POSIX record lock the JVM takes) holds the lock of
    // k's stripe: a put of k written meanwhile does not land until it lets go.
    assumeThat(System.getProperty("os.name")).doesNotContainIgnoringCase("windows");
    DirectoryCloud cloud = DirectoryCloud.open("d", root);
    Path stripe =
        root.resolve("locks")
            .resolve(Integer.toString(Math.floorMod("k".hashCode(), DirectoryCloud.LOCK_STRIPES)));
    Process holder =
        new ProcessBuilder(
                "python3",
                "-c",
                "import fcntl, sys\n"
                    + "f = open(sys.argv[1], 'a+')\n"
                    + "fcntl.lockf(f, fcntl.LOCK_EX)\n"
                    + "print('locked', flush=True)\n"
                    + "sys.stdin.read()\n",
                stripe.toString())
            .redirectErrorStream(true)
            .start();
    try {
      java.io.BufferedReader out =
          new java.io.BufferedReader(
              new java.io.InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
      assertThat(out.readLine()).isEqualTo("locked");
      CompletableFuture<Void> put = cloud.put(KEY, bytes("waits"));
      CompletableFuture<Boolean> conditional =
          cloud.putIfMatch(ObjectKey.of("other"), bytes("x"), java.util.Optional.empty());
      // A name of another stripe is not held up (unless it shares k's stripe).
      if (Math.floorMod("other".hashCode(), DirectoryCloud.LOCK_STRIPES)
          != Math.floorMod("k".hashCode(), DirectoryCloud.LOCK_STRIPES)) {
        assertThat(conditional.get(30, TimeUnit.SECONDS)).isTrue();
      }
      Thread.sleep(300);
      assertThat(put).as("the put waits for the other process's lock").isNotDone();
      assertThat(Files.exists(cloud.objectsDirectory().resolve("k"))).isFalse();
      holder.getOutputStream().close();
      put.get(30, TimeUnit.SECONDS);
      assertThat(new String(cloud.get(KEY).join(), StandardCharsets.UTF_8)).isEqualTo("waits");
    } finally {
      holder.destroy();
      holder.waitFor(10, TimeUnit.SECONDS);
      cloud.close();
    }
  }
}
