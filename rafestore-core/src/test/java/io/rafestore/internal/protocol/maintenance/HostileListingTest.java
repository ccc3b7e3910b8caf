package io.rafestore.internal.protocol.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.CloudFault;
import io.rafestore.CloudRole;
import io.rafestore.CollectionReport;
import io.rafestore.KeyPage;
import io.rafestore.OrphanReport;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.RafeStoreListener;
import io.rafestore.RetentionPolicy;
import io.rafestore.VerifyReport;
import io.rafestore.internal.protocol.Harness;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.context.Loop;
import io.rafestore.internal.util.Names;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ListPage;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 14, "bound hostile listings": a cloud whose paged listing never ends, runs far ahead or
 * invents names costs bounded time, requests and memory; walks never recurse per page and stop with
 * their caller and with {@code close()}; and {@code keys()} returns only keys that f + 1 clouds
 * list or whose signed metadata verifies.
 */
class HostileListingTest {
  /** The default operation timeout is 5 minutes; every pass here must end far sooner. */
  static final Duration BOUND = Duration.ofSeconds(30);

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Lies in its paged listing only: {@link Mode#ENDLESS} answers every page with {@code limit} new,
   * plausible names after the start and "more follow", forever ({@code pagesLeft} bounds it, for a
   * walk over very many pages); {@link Mode#INVENTED} lists the real objects plus invented names.
   * Pages complete at once, or after {@code delay} on the virtual scheduler.
   */
  static final class HostileCloud extends io.rafestore.spi.ForwardingCloud {
    enum Mode {
      HONEST,
      ENDLESS,
      INVENTED
    }

    final CloudDriver inner;
    final io.rafestore.clouds.VirtualScheduler scheduler;
    final AtomicInteger listCalls = new AtomicInteger();
    volatile Mode mode = Mode.HONEST;
    volatile Duration delay;
    volatile boolean decodable = true;
    volatile long pagesLeft = Long.MAX_VALUE;
    final TreeSet<String> invented = new TreeSet<>();

    HostileCloud(CloudDriver inner, io.rafestore.clouds.VirtualScheduler scheduler) {
      super(inner);
      this.inner = inner;
      this.scheduler = scheduler;
    }

    @Override
    public CompletableFuture<ListPage> list(String prefix, String startAfter, int limit) {
      listCalls.incrementAndGet();
      return switch (mode) {
        case HONEST -> inner.list(prefix, startAfter, limit);
        case ENDLESS -> later(endless(prefix, startAfter, limit));
        case INVENTED ->
            inner
                .list(prefix)
                .thenCompose(all -> later(withInvented(all, prefix, startAfter, limit)));
      };
    }

    /** Names "zzz-<counter>" (a valid key, after every key of the tests) or "%zz<counter>". */
    private ListPage endless(String prefix, String startAfter, int limit) {
      String tag = prefix + (decodable ? "zzz-" : "%zz");
      String suffix = prefix.equals(Names.METADATA_PREFIX) ? "/alice" : "";
      long i = 0;
      if (startAfter.startsWith(tag)) {
        String digits = startAfter.substring(tag.length(), tag.length() + 12);
        i = Long.parseLong(digits) + 1;
      }
      List<ObjectInfo> out = new ArrayList<>();
      for (int j = 0; j < limit; j++) {
        out.add(new ObjectInfo(ObjectKey.of(tag + String.format("%012d", i + j) + suffix), 100));
      }
      boolean more = --pagesLeft > 0;
      return new ListPage(out, more);
    }

    private ListPage withInvented(
        List<ObjectInfo> real, String prefix, String startAfter, int limit) {
      TreeSet<String> names = new TreeSet<>();
      real.forEach(o -> names.add(o.key().value()));
      for (String n : invented) {
        if (n.startsWith(prefix)) {
          names.add(n);
        }
      }
      List<ObjectInfo> out = new ArrayList<>();
      for (String n : names.tailSet(startAfter, false)) {
        if (out.size() == limit) {
          return new ListPage(out, true);
        }
        out.add(new ObjectInfo(ObjectKey.of(n), 1));
      }
      return new ListPage(out, false);
    }

    private CompletableFuture<ListPage> later(ListPage page) {
      Duration d = delay;
      if (d == null) {
        return CompletableFuture.completedFuture(page);
      }
      CompletableFuture<ListPage> out = new CompletableFuture<>();
      scheduler.schedule(d, () -> out.complete(page));
      return out;
    }

    /** The harness closes the cloud this one wraps. */
    @Override
    public void close() {}
  }

  /** A deployment whose cloud 0 is a {@link HostileCloud} around the harness's cloud. */
  static final class Setup {
    final Harness h;
    final HostileCloud hostile;
    final List<CloudFault> faults = new CopyOnWriteArrayList<>();
    final RafeStore store;

    Setup(int f) {
      this(f, null);
    }

    Setup(int f, Duration operationTimeout) {
      h = new Harness(f, 3 * f + 1);
      hostile = new HostileCloud(h.clouds.get(0), h.scheduler);
      RafeStore.Builder b =
          RafeStore.builder()
              .inlineThreshold(0)
              .faultsTolerated(f)
              .mode(ProtocolMode.PAPER)
              .executor(Runnable::run)
              .scheduler(h.scheduler)
              .closeDrivers(false)
              .writer("alice", Harness.ALICE)
              .listener(
                  new RafeStoreListener() {
                    @Override
                    public void cloudFault(String key, CloudFault fault) {
                      faults.add(fault);
                    }
                  });
      if (operationTimeout != null) {
        b.operationTimeout(operationTimeout);
      }
      b.cloud(hostile, CloudRole.DATA_AND_METADATA, Duration.ZERO);
      for (int i = 1; i < h.clouds.size(); i++) {
        b.cloud(h.clouds.get(i), CloudRole.DATA_AND_METADATA, Duration.ZERO);
      }
      store = b.build();
    }

    /** Runs {@code op} and checks it took less than {@link #BOUND} of virtual time. */
    <T> T timed(CompletableFuture<T> op) throws ExecutionException {
      Duration start = h.scheduler.elapsed();
      T out = h.run(op);
      assertThat(h.scheduler.elapsed().minus(start)).isLessThan(BOUND);
      return out;
    }

    /** After a call completed, the hostile cloud is asked for no further page. */
    void assertNoMoreListing() {
      int calls = hostile.listCalls.get();
      h.scheduler.advance(Duration.ofMinutes(10));
      assertThat(hostile.listCalls.get()).as("list requests after the call").isEqualTo(calls);
    }

    boolean named(String what) {
      return faults.stream().anyMatch(x -> x.cloudId().equals("p0") && x.detail().contains(what));
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void keysCompletesWhenAnEndlessCloudAnswersAtOnce(int f) throws Exception {
    Setup s = new Setup(f);
    try (RafeStore store = s.store) {
      for (String k : List.of("a", "k", "m")) {
        s.h.run(store.write(k, utf8(k)));
      }
      s.hostile.mode = HostileCloud.Mode.ENDLESS;
      assertThat(s.timed(store.keys())).containsExactly("a", "k", "m");
      assertThat(s.named("not followed further")).isTrue();
      assertThat(s.hostile.listCalls.get()).isLessThan(10);
      s.assertNoMoreListing();
      KeyPage page = s.timed(store.keys("a", 1));
      assertThat(page.keys()).containsExactly("k");
      assertThat(page.more()).isTrue();
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void everyPassEndsWellBeforeTheTimeoutWithAnEndlessDelayedCloud(int f) throws Exception {
    Setup s = new Setup(f);
    try (RafeStore store = s.store) {
      for (int i = 0; i < 3; i++) {
        s.h.run(store.write("k", utf8("v" + i)));
        s.h.run(store.write("j" + i, utf8("v" + i)));
      }
      s.hostile.mode = HostileCloud.Mode.ENDLESS;
      s.hostile.delay = Duration.ofMillis(2);

      assertThat(s.timed(store.keys())).containsExactly("j0", "j1", "j2", "k");
      assertThat(s.named("not followed further")).isTrue();
      s.assertNoMoreListing();

      VerifyReport v = s.timed(store.verify("k"));
      assertThat(v.findingsFor("p0")).anyMatch(x -> x.detail().contains("not followed past"));
      assertThat(v.retainedVersions()).hasSize(3);
      s.assertNoMoreListing();

      List<VerifyReport> all = s.timed(store.verifyAll());
      assertThat(all).extracting(VerifyReport::key).containsExactly("j0", "j1", "j2", "k");
      s.assertNoMoreListing();

      s.faults.clear();
      OrphanReport o = s.timed(store.collectOrphans("k", Duration.ZERO));
      assertThat(o.faults())
          .anyMatch(x -> x.cloudId().equals("p0") && x.detail().contains("not followed past"));
      // The invented names were not followed far: a few pages' worth at most.
      assertThat(o.deleted().getOrDefault("p0", List.of()).size())
          .isLessThanOrEqualTo(Listings.PAGE * (2 + Listings.Pacing.AHEAD));
      s.assertNoMoreListing();

      CollectionReport c = s.timed(store.collect("k", RetentionPolicy.keepLast(1)));
      assertThat(c.versionsCollected()).hasSize(2);
      assertThat(c.faults()).anyMatch(x -> x.cloudId().equals("p0"));
      s.assertNoMoreListing();

      s.faults.clear();
      s.timed(store.purge("j0"));
      assertThat(s.named("not followed past")).isTrue();
      s.assertNoMoreListing();
      // The purged key is gone from the clouds that answered.
      for (int i = 1; i < s.h.stores.size(); i++) {
        assertThat(s.h.stores.get(i).list(Maintenance.metadataPrefix("j0")).join()).isEmpty();
      }
    }
  }

  @Test
  void aWalkStopsWhenItsCallerFailsOrCancelsOrTheClientCloses() throws Exception {
    // Beyond the fault model on purpose: two endless clouds of four, so the key walk itself never
    // ends (names that are not keys: every round is cheap) and only its caller can stop it.
    Setup s = new Setup(1);
    HostileCloud second = new HostileCloud(s.h.clouds.get(1), s.h.scheduler);
    RafeStore.Builder b =
        RafeStore.builder()
            .inlineThreshold(0)
            .faultsTolerated(1)
            .mode(ProtocolMode.PAPER)
            .executor(Runnable::run)
            .scheduler(s.h.scheduler)
            .closeDrivers(false)
            .operationTimeout(Duration.ofSeconds(1))
            .writer("alice", Harness.ALICE);
    b.cloud(s.hostile, CloudRole.DATA_AND_METADATA, Duration.ZERO);
    b.cloud(second, CloudRole.DATA_AND_METADATA, Duration.ZERO);
    for (int i = 2; i < 4; i++) {
      b.cloud(s.h.clouds.get(i), CloudRole.DATA_AND_METADATA, Duration.ZERO);
    }
    for (HostileCloud c : List.of(s.hostile, second)) {
      c.mode = HostileCloud.Mode.ENDLESS;
      c.decodable = false;
      c.delay = Duration.ofMillis(2);
    }
    RafeStore store = b.build();
    try {
      // The operation timeout fails keys(): no page is asked for after it.
      CompletableFuture<List<String>> timedOut = store.keys();
      assertThatThrownBy(() -> s.h.run(timedOut)).hasMessageContaining("operation timeout");
      assertThat(s.hostile.listCalls.get()).isGreaterThan(100);
      s.assertNoMoreListing();

      // Cancelled by the caller.
      CompletableFuture<KeyPage> cancelled = store.keys(null, 10);
      s.h.scheduler.advance(Duration.ofMillis(100));
      assertThat(cancelled).isNotDone();
      cancelled.cancel(true);
      s.assertNoMoreListing();

      // Stopped by close(), also for the blocking walk of verifyAll.
      CompletableFuture<List<VerifyReport>> open = store.verifyAll();
      s.h.scheduler.advance(Duration.ofMillis(100));
      assertThat(open).isNotDone();
      store.close();
      assertThat(open).isCompletedExceptionally();
      assertThatThrownBy(open::join).hasMessageContaining("closed");
      s.assertNoMoreListing();
      assertThat(second.listCalls.get()).isGreaterThan(0);
    } finally {
      store.close();
      s.store.close();
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void inventedNamesFromOneCloudAreNotKeys(int f) throws Exception {
    Setup s = new Setup(f);
    try (RafeStore store = s.store) {
      List<String> real = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        real.add("key" + i);
        s.h.run(store.write("key" + i, utf8("v" + i)));
      }
      for (int i = 0; i < 1000; i++) {
        // Interleaved with the real keys, and some after them.
        s.hostile.invented.add(Names.metadataObject("key" + (i % 25) + "-" + i, "alice").value());
      }
      s.hostile.mode = HostileCloud.Mode.INVENTED;
      real.sort(null);
      assertThat(s.timed(store.keys())).containsExactlyElementsOf(real);
      // The same in small pages.
      List<String> walked = new ArrayList<>();
      String after = null;
      while (true) {
        KeyPage page = s.timed(store.keys(after, 7));
        walked.addAll(page.keys());
        if (page.next().isEmpty()) {
          break;
        }
        after = page.next().get();
      }
      assertThat(walked).containsExactlyInAnyOrderElementsOf(real);
      assertThat(s.timed(store.verifyAll())).hasSize(real.size());
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void aKeyOnFewCloudsIsListedIfItsMetadataVerifies(int f) throws Exception {
    Setup s = new Setup(f);
    try (RafeStore store = s.store) {
      s.h.run(store.write("onFPlus1", utf8("x")));
      s.h.run(store.write("onOne", utf8("y")));
      int n = s.h.stores.size();
      // Metadata lost on all but f + 1 clouds, and on all but one: both still verify.
      for (int i = f + 1; i < n; i++) {
        s.h.stores.get(i).delete(Names.metadataObject("onFPlus1", "alice")).join();
      }
      for (int i = 1; i < n; i++) {
        s.h.stores.get(i).delete(Names.metadataObject("onOne", "alice")).join();
      }
      // An unsigned object on f clouds (as a faulty cloud could hold) is not a key.
      for (int i = 0; i < f; i++) {
        s.h.stores.get(i).put(Names.metadataObject("forged", "alice"), new byte[] {1}).join();
      }
      // "onOne" is listed by one cloud only, so it is kept only because its check's readM finds
      // the signed log: here the holder answers first, so it is among the n - f replies readM
      // waits for. (A key on fewer than n - f clouds may be missed otherwise: awaiting repair.)
      for (int i = 1; i < n; i++) {
        s.h.clouds.get(i).rtt(Duration.ofMillis(50));
      }
      assertThat(s.timed(store.keys())).containsExactly("onFPlus1", "onOne");
    }
  }

  @Test
  void aWalkOverManyPagesThatCompleteAtOnceUsesNoStack() throws Exception {
    Setup s = new Setup(1);
    s.hostile.mode = HostileCloud.Mode.ENDLESS;
    s.hostile.pagesLeft = 150_000;
    Context ctx = new Context(Harness.settings(s.store));
    AtomicLong names = new AtomicLong();
    CompletableFuture<Void> walk =
        Listings.walk(
            ctx,
            ctx.clouds.get(0),
            "d/",
            1,
            page -> {
              names.addAndGet(page.size());
              return CompletableFuture.completedFuture(null);
            });
    assertThat(walk).isCompleted();
    walk.join();
    assertThat(names.get()).isEqualTo(150_000);
    assertThat(s.hostile.listCalls.get()).isEqualTo(150_000);
    s.store.close();
  }

  @Test
  void aLoopOfManyTurnsThatCompleteAtOnceUsesNoStack() {
    Setup s = new Setup(1);
    Context ctx = new Context(Harness.settings(s.store));
    AtomicInteger turns = new AtomicInteger();
    CompletableFuture<Void> loop =
        Loop.repeat(
            ctx, () -> CompletableFuture.completedFuture(turns.incrementAndGet() < 500_000));
    assertThat(loop).isCompleted();
    assertThat(turns.get()).isEqualTo(500_000);
    s.store.close();
  }
}
