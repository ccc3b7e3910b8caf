package io.rafestore.internal.protocol;

import io.rafestore.CloudRole;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.SigningKeys;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.clouds.VirtualScheduler;
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
 */
final class Harness {
  static final KeyPair ALICE = SigningKeys.generate();
  static final KeyPair BOB = SigningKeys.generate();
  static final KeyPair MALLORY = SigningKeys.generate();

  final VirtualScheduler scheduler = new VirtualScheduler();
  final List<MemoryCloud> stores = new ArrayList<>();
  final List<TestCloud> clouds = new ArrayList<>();
  final int f;

  final io.rafestore.clouds.WanEmulator network =
      io.rafestore.clouds.WanEmulator.builder(scheduler).seed(42).build();

  Harness(int f, int n) {
    this(f, n, i -> new MemoryCloud("p" + i));
  }

  /** A deployment whose cloud i stores in {@code store.apply(i)} (named "p" + i). */
  Harness(int f, int n, java.util.function.IntFunction<MemoryCloud> store) {
    this.f = f;
    for (int i = 0; i < n; i++) {
      MemoryCloud m = store.apply(i);
      stores.add(m);
      clouds.add(new TestCloud(m, network, scheduler, 1000L + i));
    }
  }

  /** Each cloud gets this RTT (in ms) by index. */
  Harness rtts(long... millis) {
    for (int i = 0; i < millis.length; i++) {
      clouds.get(i).rtt(Duration.ofMillis(millis[i]));
    }
    return this;
  }

  RafeStore.Builder builder(ProtocolMode mode) {
    RafeStore.Builder b =
        RafeStore.builder()
            .faultsTolerated(f)
            .mode(mode)
            .executor(Runnable::run)
            .scheduler(scheduler)
            .closeDrivers(false)
            .writer("alice", ALICE);
    for (TestCloud c : clouds) {
      b.cloud(c, CloudRole.DATA_AND_METADATA, c.rtt());
    }
    return b;
  }

  /** Builds with the given role and latency hint per cloud. */
  RafeStore build(
      ProtocolMode mode,
      BiFunction<Integer, CloudDriver, CloudRole> roles,
      String writer,
      KeyPair keys,
      List<String> trustedIds,
      List<KeyPair> trustedKeys) {
    RafeStore.Builder b =
        RafeStore.builder()
            .faultsTolerated(f)
            .mode(mode)
            .executor(Runnable::run)
            .scheduler(scheduler)
            .closeDrivers(false)
            .writer(writer, keys);
    for (int i = 0; i < clouds.size(); i++) {
      TestCloud c = clouds.get(i);
      b.cloud(c, roles.apply(i, c), c.rtt());
    }
    for (int i = 0; i < trustedIds.size(); i++) {
      b.trustWriter(trustedIds.get(i), trustedKeys.get(i).getPublic());
    }
    return b.build();
  }

  RafeStore client(ProtocolMode mode) {
    return builder(mode).build();
  }

  <T> T run(CompletableFuture<T> f) throws ExecutionException {
    return scheduler.runUntilDone(f);
  }
}
