package io.rafestore.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.rafestore.CloudFault;
import io.rafestore.QuorumException;
import io.rafestore.RafeStore;
import io.rafestore.SigningKeys;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.TaggedGet;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The drivers {@link StoreConfig#open} returns before their clients are built: requests wait for
 * the build, a build failure fails them naming the cloud, a read does not wait for a build it does
 * not need, and closing does not wait for a build.
 */
class DeferredDriverTest {
  private static final ObjectKey KEY = ObjectKey.of("obj");

  @TempDir Path dir;

  @BeforeEach
  void keys() throws IOException {
    KeyFiles.write(dir.resolve("alice.key"), "alice", SigningKeys.generate());
  }

  @Test
  void holdsRequestsUntilTheClientIsBuiltThenSendsThem() throws Exception {
    CompletableFuture<CloudDriver> built = new CompletableFuture<>();
    DeferredDriver d = new DeferredDriver("m", built);
    MemoryCloud memory = new MemoryCloud("m");
    memory.put(KEY, bytes("before")).get(5, TimeUnit.SECONDS);

    CompletableFuture<byte[]> get = d.get(KEY);
    CompletableFuture<Void> put = d.put(ObjectKey.of("other"), bytes("held"));
    assertThat(d.id()).isEqualTo("m");
    assertThat(get).isNotDone();
    assertThat(put).isNotDone();

    built.complete(memory);
    assertThat(get.get(5, TimeUnit.SECONDS)).isEqualTo(bytes("before"));
    put.get(5, TimeUnit.SECONDS);
    assertThat(memory.get(ObjectKey.of("other")).get(5, TimeUnit.SECONDS)).isEqualTo(bytes("held"));
    // Once built, requests go straight through.
    assertThat(d.list("").get(5, TimeUnit.SECONDS)).hasSize(2);
  }

  @Test
  void conditionalGetsAreHeldAndHandedOnAndOfferedOnceBuilt() throws Exception {
    CompletableFuture<CloudDriver> built = new CompletableFuture<>();
    DeferredDriver d = new DeferredDriver("m", built);
    MemoryCloud memory = new MemoryCloud("m");
    memory.put(KEY, bytes("log")).get(5, TimeUnit.SECONDS);

    // Not built yet: no waiting, and no tags offered.
    assertThat(d.conditionalGets()).isFalse();
    CompletableFuture<TaggedGet> held = d.getTagged(KEY, Optional.empty(), Optional.empty());
    assertThat(held).isNotDone();

    built.complete(memory);
    TaggedGet first = held.get(5, TimeUnit.SECONDS);
    assertThat(first.data()).isEqualTo(bytes("log"));
    assertThat(first.tag()).isPresent();
    assertThat(d.conditionalGets()).isTrue();
    assertThat(d.getTagged(KEY, Optional.empty(), first.tag()).get(5, TimeUnit.SECONDS).unchanged())
        .isTrue();
  }

  @Test
  void aFailedBuildOffersNoConditionalGets() {
    DeferredDriver d =
        new DeferredDriver("m", CompletableFuture.failedFuture(new IllegalStateException("no")));
    assertThat(d.conditionalGets()).isFalse();
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () -> d.getTagged(KEY, Optional.empty(), Optional.empty()).get(5, TimeUnit.SECONDS));
    assertThat(e.getCause()).isInstanceOf(CloudException.class);
  }

  @Test
  void conditionalPutsAreHeldAndHandedOnAndOfferedOnceBuilt() throws Exception {
    CompletableFuture<CloudDriver> built = new CompletableFuture<>();
    DeferredDriver d = new DeferredDriver("m", built);
    List<String> asked = new CopyOnWriteArrayList<>();
    // A driver offering conditional puts: it records each one and stores only where absent.
    CloudDriver conditional =
        new ForwardingCloud(new MemoryCloud("m")) {
          @Override
          public boolean conditionalPuts() {
            return true;
          }

          @Override
          public CompletableFuture<Boolean> putIfMatch(
              ObjectKey key, byte[] data, Optional<String> ifMatch) {
            asked.add(
                key.value()
                    + " "
                    + new String(data, StandardCharsets.UTF_8)
                    + " "
                    + ifMatch.orElse("(absent)"));
            return CompletableFuture.completedFuture(ifMatch.isEmpty());
          }
        };

    // Not built yet: no waiting, and no conditional puts offered.
    assertThat(d.conditionalPuts()).isFalse();
    CompletableFuture<Boolean> held = d.putIfMatch(KEY, bytes("log"), Optional.empty());
    assertThat(held).isNotDone();

    built.complete(conditional);
    assertThat(held.get(5, TimeUnit.SECONDS)).isTrue();
    assertThat(d.conditionalPuts()).isTrue();
    assertThat(d.putIfMatch(KEY, bytes("newer"), Optional.of("t1")).get(5, TimeUnit.SECONDS))
        .isFalse();
    assertThat(asked).containsExactly("obj log (absent)", "obj newer t1");
  }

  @Test
  void aDriverWithoutConditionalPutsOrAFailedBuildOffersNone() {
    CompletableFuture<CloudDriver> built = new CompletableFuture<>();
    DeferredDriver plain = new DeferredDriver("m", built);
    // A decorator that keeps the default: no conditional puts.
    built.complete(new ForwardingCloud(new MemoryCloud("m")) {});
    assertThat(plain.conditionalPuts()).isFalse();

    DeferredDriver failed =
        new DeferredDriver("m", CompletableFuture.failedFuture(new IllegalStateException("no")));
    assertThat(failed.conditionalPuts()).isFalse();
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () -> failed.putIfMatch(KEY, bytes("log"), Optional.empty()).get(5, TimeUnit.SECONDS));
    assertThat(e.getCause()).isInstanceOf(CloudException.class);
  }

  @Test
  void aRequestCancelledBeforeTheBuildIsNeverSent() throws Exception {
    CompletableFuture<CloudDriver> built = new CompletableFuture<>();
    DeferredDriver d = new DeferredDriver("m", built);
    MemoryCloud memory = new MemoryCloud("m");
    CompletableFuture<Void> put = d.put(KEY, bytes("dropped"));
    put.cancel(true);
    built.complete(memory);
    assertThat(memory.list("").get(5, TimeUnit.SECONDS)).isEmpty();
  }

  @Test
  void aFailedBuildFailsHeldAndLaterRequestsNamingTheCloudAndTheField() throws Exception {
    CompletableFuture<CloudDriver> built = new CompletableFuture<>();
    DeferredDriver d = new DeferredDriver("az", built);
    CompletableFuture<byte[]> held = d.get(KEY);
    ConfigException why =
        new ConfigException(
            "emu.properties", 7, "cloud.az.credentials", "the azure driver rejected it: bad");
    built.completeExceptionally(why);

    for (CompletableFuture<?> f : java.util.List.of(held, d.get(KEY), d.delete(KEY))) {
      ExecutionException e =
          assertThrows(ExecutionException.class, () -> f.get(5, TimeUnit.SECONDS));
      assertThat(e.getCause()).isInstanceOf(CloudException.class);
      CloudException c = (CloudException) e.getCause();
      assertThat(c.cloudId()).isEqualTo("az");
      assertThat(c.kind()).isEqualTo(CloudException.Kind.UNAUTHORIZED);
      assertThat(c.getCause()).isSameAs(why);
      assertThat(c.getMessage())
          .contains("could not be created")
          .contains("emu.properties:7: cloud.az.credentials");
    }
    // No capability to offer, and no waiting for one.
    assertThat(d.multipart()).isEmpty();
  }

  @Test
  void closeDuringTheBuildFailsHeldRequestsAndClosesTheDriverOnceBuilt() throws Exception {
    CompletableFuture<CloudDriver> built = new CompletableFuture<>();
    DeferredDriver d = new DeferredDriver("m", built);
    CompletableFuture<byte[]> held = d.get(KEY);
    d.close(); // returns at once: nothing is built yet
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> held.get(5, TimeUnit.SECONDS));
    assertThat(((CloudException) e.getCause()).kind()).isEqualTo(CloudException.Kind.CANCELLED);

    boolean[] closed = {false};
    built.complete(
        new io.rafestore.spi.ForwardingCloud(new MemoryCloud("m")) {
          @Override
          public void close() {
            closed[0] = true;
            super.close();
          }
        });
    assertThat(closed[0]).isTrue();
  }

  @Test
  void openThrowsASettingsErrorTheDriverFindsBeforeBuildingItsClient() throws IOException {
    StoreConfig c =
        StoreConfig.load(
            write(
                threeDirectories()
                    + "cloud.s.type = slow\ncloud.s.bucket = "
                    + gate()
                    + "\ncloud.s.option.fail = now\n"));
    ConfigException e = assertThrows(ConfigException.class, c::open);
    assertThat(e.line()).isEqualTo(10);
    assertThat(e.field()).contains("cloud.s.bucket");
    assertThat(e.getMessage()).contains("refused when the settings are checked");
  }

  @Test
  void aBuildThatFailsLaterLeavesTheOtherCloudsServing() throws Exception {
    String gate = gate();
    StoreConfig c =
        StoreConfig.load(
            write(
                threeDirectories()
                    + "cloud.s.type = slow\ncloud.s.bucket = "
                    + gate
                    + "\ncloud.s.option.fail = later\n"));
    try (RafeStore store = c.open()) {
      FakeProviders.Slow.GATES.get(gate).release.countDown();
      // n = 4, f = 1: the three directories are a quorum without the cloud that failed.
      assertTimeoutPreemptively(
          Duration.ofSeconds(30),
          () -> {
            store.blocking().write("k", bytes("v"));
            assertThat(store.blocking().read("k").utf8()).isEqualTo("v");
          });
    }
  }

  @Test
  void buildsThatFailPastFSurfaceInTheOperationsErrorNamingTheCloudsAndLines() throws Exception {
    String gate1 = gate();
    String gate2 = gate();
    // Two directories and two clouds whose clients cannot be built: n = 4, f = 1, so no quorum.
    String text =
        threeDirectories().replace("cloud.c.type = directory\ncloud.c.bucket = clouds/c\n", "")
            + "cloud.s.type = slow\ncloud.s.bucket = "
            + gate1
            + "\ncloud.s.option.fail = later\n"
            + "cloud.t.type = slow\ncloud.t.bucket = "
            + gate2
            + "\ncloud.t.option.fail = later\n";
    StoreConfig c = StoreConfig.load(write(text));
    try (RafeStore store = c.open()) {
      FakeProviders.Slow.GATES.get(gate1).release.countDown();
      FakeProviders.Slow.GATES.get(gate2).release.countDown();
      QuorumException e =
          assertTimeoutPreemptively(
              Duration.ofSeconds(30),
              () ->
                  assertThrows(
                      QuorumException.class, () -> store.blocking().write("k", bytes("v"))));
      assertThat(e.faults()).extracting(CloudFault::cloudId).contains("s", "t");
      // cloud.s.credentials has no line of its own: the cloud's first line (7) is named.
      assertThat(e.getMessage())
          .contains("could not be created")
          .contains("rafestore.properties:7: cloud.s.credentials")
          .contains("refused when the client is built");
    }
  }

  @Test
  void aReadCompletesWhileOneCloudsClientIsNeverBuiltAndCloseDoesNotWaitForIt() throws Exception {
    String gate = gate();
    StoreConfig c =
        StoreConfig.load(
            write(threeDirectories() + "cloud.s.type = slow\ncloud.s.bucket = " + gate + "\n"));
    RafeStore store = c.open();
    FakeProviders.Gate g = FakeProviders.Slow.GATES.get(gate);
    assertThat(g.started.await(10, TimeUnit.SECONDS)).isTrue();
    assertTimeoutPreemptively(
        Duration.ofSeconds(30),
        () -> {
          store.blocking().write("k", bytes("v"));
          assertThat(store.blocking().read("k").utf8()).isEqualTo("v");
        });
    // The build is still blocked: closing must not wait for it.
    assertThat(g.release.getCount()).isEqualTo(1);
    assertTimeoutPreemptively(Duration.ofSeconds(5), store::close);
    assertThat(g.closed.getCount()).isEqualTo(1);
    // Once the build completes, its driver is closed by the thread that built it.
    g.release.countDown();
    assertThat(g.closed.await(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void requestsSentBeforeTheBuildCompletesAreServedAfterIt() throws Exception {
    String gate = gate();
    // The slow cloud first, so it is among the f + 1 data clouds a write uses first.
    StoreConfig c =
        StoreConfig.load(
            write(
                "writer.id = alice\nwriter.key = alice.key\ndataCloudsInOrderAdded = true\n"
                    + "cloud.s.type = slow\ncloud.s.bucket = "
                    + gate
                    + "\n"
                    + threeDirectories()
                        .replace("writer.id = alice\nwriter.key = alice.key\n", "")));
    try (RafeStore store = c.open()) {
      FakeProviders.Gate g = FakeProviders.Slow.GATES.get(gate);
      CompletableFuture<?> write = store.write("k", bytes("v"));
      assertThat(g.started.await(10, TimeUnit.SECONDS)).isTrue();
      g.release.countDown();
      write.get(30, TimeUnit.SECONDS);
      assertThat(store.blocking().read("k").utf8()).isEqualTo("v");
    }
    assertThat(FakeProviders.Slow.GATES.get(gate).closed.await(10, TimeUnit.SECONDS)).isTrue();
  }

  private static String gate() {
    return "gate-" + UUID.randomUUID();
  }

  /** The writer (lines 1-2) and three directory clouds (lines 3-8). */
  private static String threeDirectories() {
    return """
        writer.id = alice
        writer.key = alice.key
        cloud.a.type = directory
        cloud.a.bucket = clouds/a
        cloud.b.type = directory
        cloud.b.bucket = clouds/b
        cloud.c.type = directory
        cloud.c.bucket = clouds/c
        """;
  }

  private Path write(String text) throws IOException {
    Path file = dir.resolve("rafestore.properties");
    Files.writeString(file, text, StandardCharsets.UTF_8);
    return file;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
