package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.CloudRole;
import io.rafestore.CloudStats;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.StoredValue;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.clouds.VirtualScheduler;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.TaggedGet;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Conditional metadata gets (design.md, "Conditional metadata reads"): a readM of a log a cloud
 * already sent this client costs that cloud a request and no egress; a changed log comes in full;
 * and a faulty cloud's false "unchanged" (its old answer again) cannot make a read return a version
 * older than regular semantics allow, nor one it never sent. On in-memory clouds and virtual time.
 */
class ConditionalReadTest {
  static final String KEY = "feed/item";

  /** Passes conditional gets through; {@link #lie} makes it answer "unchanged" to any tag. */
  static class Cloud extends ForwardingCloud {
    volatile boolean lie;
    volatile boolean conditional = true;
    final AtomicInteger unchangedAnswers = new AtomicInteger();

    /** The range of every conditional get asked. */
    final List<Optional<ByteRange>> asked = new java.util.concurrent.CopyOnWriteArrayList<>();

    Cloud(CloudDriver delegate) {
      super(delegate);
    }

    /** The cloud below, to change what it stores behind the client's back. */
    CloudDriver below() {
      return delegate();
    }

    @Override
    public boolean conditionalGets() {
      return conditional;
    }

    @Override
    public CompletableFuture<TaggedGet> getTagged(
        ObjectKey key, Optional<ByteRange> range, Optional<String> ifNoneMatch) {
      asked.add(range);
      if (lie && ifNoneMatch.isPresent()) {
        unchangedAnswers.incrementAndGet();
        return CompletableFuture.completedFuture(TaggedGet.unchanged(ifNoneMatch.get()));
      }
      return delegate()
          .getTagged(key, range, ifNoneMatch)
          .thenApply(
              t -> {
                if (t.unchanged()) {
                  unchangedAnswers.incrementAndGet();
                }
                return t;
              });
    }
  }

  final VirtualScheduler scheduler = new VirtualScheduler();
  final List<Cloud> clouds = new ArrayList<>();
  final io.rafestore.clouds.WanEmulator network =
      io.rafestore.clouds.WanEmulator.builder(scheduler).seed(42).build();

  /** Round trips in ms per cloud: the liar of a test is made the fastest. */
  final long[] rtts = {20, 30, 40, 50};

  ConditionalReadTest() {
    for (int i = 0; i < 4; i++) {
      clouds.add(new Cloud(new MemoryCloud("p" + i)));
    }
  }

  /** The clients' bound on a log's size; 0 keeps the default. */
  int maxMetadataBytes;

  RafeStore client(String writer, java.security.KeyPair keys) {
    RafeStore.Builder b =
        RafeStore.builder()
            .faultsTolerated(1)
            .mode(ProtocolMode.FAST)
            .executor(Runnable::run)
            .scheduler(scheduler)
            .closeDrivers(false)
            .writer(writer, keys)
            .trustWriter("alice", Harness.ALICE.getPublic());
    if (maxMetadataBytes > 0) {
      b.maxMetadataBytes(maxMetadataBytes);
    }
    for (int i = 0; i < clouds.size(); i++) {
      java.time.Duration rtt = java.time.Duration.ofMillis(rtts[i]);
      b.cloud(
          network.wrap(clouds.get(i), io.rafestore.clouds.WanEmulator.Link.rtt(rtt)),
          CloudRole.DATA_AND_METADATA,
          rtt);
    }
    return b.build();
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static long sum(Map<String, CloudStats> after, Map<String, CloudStats> before, String what) {
    long total = 0;
    for (Map.Entry<String, CloudStats> e : after.entrySet()) {
      CloudStats a = e.getValue();
      CloudStats b = before.get(e.getKey());
      total +=
          switch (what) {
            case "gets" -> a.gets() - b.gets();
            default -> a.bytesDown() - b.bytesDown();
          };
    }
    return total;
  }

  <T> T run(CompletableFuture<T> f) throws Exception {
    return scheduler.runUntilDone(f);
  }

  @Test
  void anUnchangedLogCostsRequestsButNoEgressAndAChangedOneComesInFull() throws Exception {
    try (RafeStore alice = client("alice", Harness.ALICE);
        RafeStore reader = client("bob", Harness.BOB)) {
      run(alice.write(KEY, bytes("v1")));
      assertThat(run(reader.read(KEY)).value()).isEqualTo(bytes("v1"));
      // The answer of the cloud beyond the quorum arrives after the read (its tag is kept then).
      scheduler.advance(java.time.Duration.ofSeconds(1));

      Map<String, CloudStats> before = reader.stats();
      StoredValue again = run(reader.read(KEY));
      Map<String, CloudStats> after = reader.stats();
      assertThat(again.value()).isEqualTo(bytes("v1"));
      assertThat(sum(after, before, "gets")).isPositive();
      // Every log came back "unchanged": no byte of metadata crossed the network.
      assertThat(sum(after, before, "bytes")).isZero();
      assertThat(clouds.stream().mapToInt(c -> c.unchangedAnswers.get()).sum()).isPositive();

      run(alice.write(KEY, bytes("v2")));
      before = reader.stats();
      assertThat(run(reader.read(KEY)).value()).isEqualTo(bytes("v2"));
      assertThat(sum(reader.stats(), before, "bytes")).isPositive();
    }
  }

  @Test
  void aConditionalGetIsBoundedAsAPlainLogGetIs() throws Exception {
    // A faulty cloud holds a log far larger than a log may be: a conditional get asks for at most
    // the bound plus one byte (as a plain log GET does), so the client never downloads the rest,
    // and the read is answered by the others.
    maxMetadataBytes = 512 * 1024;
    try (RafeStore alice = client("alice", Harness.ALICE);
        RafeStore reader = client("bob", Harness.BOB)) {
      run(alice.write(KEY, bytes("v1")));
      byte[] huge = new byte[4 * 1024 * 1024];
      java.util.Arrays.fill(huge, (byte) 'x');
      run(
          clouds
              .get(0)
              .below()
              .put(io.rafestore.internal.util.Names.metadataObject(KEY, "alice"), huge));
      Map<String, CloudStats> before = reader.stats();
      assertThat(run(reader.read(KEY)).value()).isEqualTo(bytes("v1"));
      scheduler.advance(java.time.Duration.ofSeconds(1));
      long fromLiar = reader.stats().get("p0").bytesDown() - before.get("p0").bytesDown();
      assertThat(fromLiar).isPositive().isLessThanOrEqualTo(maxMetadataBytes + 1L);
      assertThat(clouds.get(0).asked)
          .isNotEmpty()
          .allSatisfy(
              r -> assertThat(r).contains(io.rafestore.spi.ByteRange.of(0, maxMetadataBytes + 1L)));
    }
  }

  @Test
  void aDriverWithoutConditionalGetsIsAskedPlainGets() throws Exception {
    clouds.forEach(c -> c.conditional = false);
    try (RafeStore alice = client("alice", Harness.ALICE);
        RafeStore reader = client("bob", Harness.BOB)) {
      run(alice.write(KEY, bytes("v1")));
      run(reader.read(KEY));
      scheduler.advance(java.time.Duration.ofSeconds(1));
      Map<String, CloudStats> before = reader.stats();
      assertThat(run(reader.read(KEY)).value()).isEqualTo(bytes("v1"));
      assertThat(sum(reader.stats(), before, "bytes")).isPositive();
      assertThat(clouds.stream().mapToInt(c -> c.unchangedAnswers.get()).sum()).isZero();
    }
  }

  @Test
  void aFalseUnchangedFromFCloudsCannotHideACompletedWrite() throws Exception {
    for (int liar = 0; liar < 4; liar++) {
      // The liar answers first, so its old log is always among the n - f answers readM uses.
      for (int i = 0; i < 4; i++) {
        rtts[i] = i == liar ? 10 : 20 + 10L * i;
      }
      try (RafeStore alice = client("alice", Harness.ALICE);
          RafeStore reader = client("bob", Harness.BOB)) {
        run(alice.write(KEY, bytes("v1")));
        // The reader learns every cloud's tag for alice's log of v1.
        assertThat(run(reader.read(KEY)).value()).isEqualTo(bytes("v1"));
        run(alice.write(KEY, bytes("v2")));
        // f = 1 cloud now claims the log is unchanged: it replays its answer of v1.
        clouds.get(liar).lie = true;
        int lies = clouds.get(liar).unchangedAnswers.get();
        // The write of v2 completed before this read began: a regular read returns it.
        assertThat(run(reader.read(KEY)).value()).as("liar p%d", liar).isEqualTo(bytes("v2"));
        assertThat(clouds.get(liar).unchangedAnswers.get()).isGreaterThan(lies);
        // Once the liar is honest again its log (v2) comes in full.
        clouds.get(liar).lie = false;
        assertThat(run(reader.read(KEY)).value()).isEqualTo(bytes("v2"));
      }
      clouds.replaceAll(c -> new Cloud(new MemoryCloud(c.id())));
    }
  }

  @Test
  void unchangedToATagNeverSentIsAFaultNotAnAnswer() throws Exception {
    // A cloud that says "unchanged" to a first get (no tag) or to another tag than the one sent.
    Cloud bad =
        new Cloud(new MemoryCloud("p3")) {
          @Override
          public CompletableFuture<TaggedGet> getTagged(
              ObjectKey key, Optional<ByteRange> range, Optional<String> ifNoneMatch) {
            unchangedAnswers.incrementAndGet();
            return CompletableFuture.completedFuture(TaggedGet.unchanged("made-up"));
          }
        };
    clouds.set(3, bad);
    try (RafeStore alice = client("alice", Harness.ALICE);
        RafeStore reader = client("bob", Harness.BOB)) {
      run(alice.write(KEY, bytes("v1")));
      run(alice.write(KEY, bytes("v2")));
      for (int i = 0; i < 3; i++) {
        assertThat(run(reader.read(KEY)).value()).isEqualTo(bytes("v2"));
      }
      assertThat(bad.unchangedAnswers.get()).isPositive();
    }
  }
}
