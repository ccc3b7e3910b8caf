package io.rafestore.internal.protocol;

import io.rafestore.CloudRole;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.SigningKeys;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.clouds.VirtualScheduler;
import io.rafestore.internal.protocol.config.Settings;
import io.rafestore.spi.CloudDriver;
import java.security.KeyPair;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.BiFunction;

/**
 * A simulated deployment for protocol tests: n in-memory clouds, each behind a {@link TestCloud}
 * that can delay, fail or lie, on virtual time with callbacks run inline, so every run is
 * deterministic and takes no real time.
 *
 * <p>Public, with {@link TestCloud}, for the tests of the protocol's sub-packages.
 */
public final class Harness {
  public static final KeyPair ALICE = SigningKeys.generate();
  public static final KeyPair BOB = SigningKeys.generate();
  public static final KeyPair MALLORY = SigningKeys.generate();

  public final VirtualScheduler scheduler = new VirtualScheduler();
  public final List<MemoryCloud> stores = new ArrayList<>();
  public final List<TestCloud> clouds = new ArrayList<>();
  public final int f;

  public final io.rafestore.clouds.WanEmulator network =
      io.rafestore.clouds.WanEmulator.builder(scheduler).seed(42).build();

  public Harness(int f, int n) {
    this(f, n, i -> new MemoryCloud("p" + i));
  }

  /** A deployment whose cloud i stores in {@code store.apply(i)} (named "p" + i). */
  public Harness(int f, int n, java.util.function.IntFunction<MemoryCloud> store) {
    this.f = f;
    for (int i = 0; i < n; i++) {
      MemoryCloud m = store.apply(i);
      stores.add(m);
      clouds.add(new TestCloud(m, network, scheduler, 1000L + i));
    }
  }

  /** Each cloud gets this RTT (in ms) by index. */
  public Harness rtts(long... millis) {
    for (int i = 0; i < millis.length; i++) {
      clouds.get(i).rtt(Duration.ofMillis(millis[i]));
    }
    return this;
  }

  public RafeStore.Builder builder(ProtocolMode mode) {
    return builder(mode, (i, c) -> CloudRole.DATA_AND_METADATA);
  }

  /**
   * A builder for writer alice with the given role per cloud and each cloud's RTT as its hint.
   *
   * <p>Inline values are off ({@code inlineThreshold(0)}): the protocol tests built on the harness
   * pin the behaviour of values written as data objects (writeDo, holders, data fetches, their
   * faults); the tests of inline values and packing turn it on ({@link #inline}).
   */
  public RafeStore.Builder builder(
      ProtocolMode mode, BiFunction<Integer, CloudDriver, CloudRole> roles) {
    RafeStore.Builder b = base(mode);
    for (int i = 0; i < clouds.size(); i++) {
      TestCloud c = clouds.get(i);
      b.cloud(c, roles.apply(i, c), c.rtt());
    }
    return b;
  }

  /**
   * As {@link #builder(ProtocolMode)}, each cloud reached through {@code wrap.apply(index, cloud)}
   * (a decorator that fails or holds some requests of this client only), its RTT still the hint.
   */
  public RafeStore.Builder wrapped(
      ProtocolMode mode, BiFunction<Integer, TestCloud, CloudDriver> wrap) {
    RafeStore.Builder b = base(mode);
    for (int i = 0; i < clouds.size(); i++) {
      TestCloud c = clouds.get(i);
      b.cloud(wrap.apply(i, c), CloudRole.DATA_AND_METADATA, c.rtt());
    }
    return b;
  }

  /** Writer alice on this harness's scheduler, inline values off, no cloud yet. */
  private RafeStore.Builder base(ProtocolMode mode) {
    return RafeStore.builder()
        .faultsTolerated(f)
        .mode(mode)
        .executor(Runnable::run)
        .scheduler(scheduler)
        .closeDrivers(false)
        .inlineThreshold(0)
        .writer("alice", ALICE);
  }

  /** A builder as {@link #builder(ProtocolMode)} with inline values at the client's defaults. */
  public RafeStore.Builder inline(ProtocolMode mode) {
    return builder(mode).inlineThreshold(64 * 1024).inlineLogBudget(128 * 1024);
  }

  /** Builds with the given role and latency hint per cloud (inline values off, as above). */
  public RafeStore build(
      ProtocolMode mode,
      BiFunction<Integer, CloudDriver, CloudRole> roles,
      String writer,
      KeyPair keys,
      List<String> trustedIds,
      List<KeyPair> trustedKeys) {
    RafeStore.Builder b = builder(mode, roles).writer(writer, keys);
    for (int i = 0; i < trustedIds.size(); i++) {
      b.trustWriter(trustedIds.get(i), trustedKeys.get(i).getPublic());
    }
    return b.build();
  }

  public RafeStore client(ProtocolMode mode) {
    return builder(mode).build();
  }

  public <T> T run(CompletableFuture<T> f) throws ExecutionException {
    return scheduler.runUntilDone(f);
  }

  /** The paper's Table 1 round-trip times (ms) from the client to clouds p0..p3. */
  public static long[] table1() {
    return new long[] {5, 315, 750, 1200};
  }

  /**
   * The settings a store built by this harness runs with (for tests that build a protocol {@code
   * Context} directly).
   */
  public static Settings settings(RafeStore store) {
    return ((Client) store).settings();
  }
}
