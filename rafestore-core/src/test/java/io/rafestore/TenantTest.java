package io.rafestore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.clouds.MemoryCloud;
import io.rafestore.clouds.VirtualScheduler;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Tenants through the public API ({@link RafeStore#forTenant}, {@link RafeStore#tenantStats},
 * {@link Fairness}, {@link TenantShare}): views share the client's keys, their requests carry the
 * tenant, figures are counted per tenant, bad ids and shares are refused naming what is wrong. On
 * virtual time with in-memory clouds.
 */
class TenantTest {
  private final VirtualScheduler clock = new VirtualScheduler();
  private final Set<String> requestTenants = ConcurrentHashMap.newKeySet();

  private RafeStore store(Fairness fairness) {
    RafeStore.Builder b =
        RafeStore.builder()
            .writer("alice", SigningKeys.generate())
            .scheduler(clock)
            .executor(Runnable::run)
            .fairness(fairness)
            .tenant("gold", TenantShare.weight(4))
            .listener(
                new RafeStoreListener() {
                  @Override
                  public void cloudRequest(CloudRequest request) {
                    requestTenants.add(request.tenant());
                  }
                });
    for (int i = 0; i < 4; i++) {
      b.cloud(new MemoryCloud("c" + i));
    }
    return b.build();
  }

  private <T> T run(CompletableFuture<T> f) throws ExecutionException {
    return clock.runUntilDone(f);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void viewsReadAndWriteTheSameKeys(boolean fair) throws Exception {
    try (RafeStore s = store(fair ? Fairness.on() : Fairness.off())) {
      RafeStore a = s.forTenant("a");
      RafeStore gold = s.forTenant("gold");
      run(a.write("k", bytes("from a")));
      assertThat(run(gold.read("k")).value()).isEqualTo(bytes("from a"));
      run(gold.write("k", bytes("from gold")));
      assertThat(run(a.read("k")).value()).isEqualTo(bytes("from gold"));
      assertThat(run(s.read("k")).value()).isEqualTo(bytes("from gold"));
      // Writes of one key from two views at once serialize as one client's: every one succeeds,
      // each on its own version, and the last is what a read sees.
      List<CompletableFuture<WriteReceipt>> writes = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        RafeStore v = i % 2 == 0 ? a : gold;
        writes.add(v.write("shared", bytes("w" + i)));
      }
      run(CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)));
      List<Version> versions = new ArrayList<>();
      for (CompletableFuture<WriteReceipt> w : writes) {
        versions.add(w.get().version());
      }
      assertThat(versions).doesNotHaveDuplicates();
      Version newest = versions.stream().max(Version::compareTo).orElseThrow();
      StoredValue read = run(s.read("shared"));
      assertThat(read.version()).isEqualTo(newest);
    }
  }

  @Test
  void viewsAreCachedAndNamedAndTheirCloseDoesNothing() throws Exception {
    try (RafeStore s = store(Fairness.off())) {
      assertThat(s.tenant()).isEqualTo("default");
      assertThat(s.forTenant("default")).isSameAs(s);
      RafeStore a = s.forTenant("a");
      assertThat(a.tenant()).isEqualTo("a");
      assertThat(s.forTenant("a")).isSameAs(a);
      assertThat(a.forTenant("b").tenant()).isEqualTo("b");
      a.close();
      run(a.write("k", bytes("v")));
      assertThat(a.blocking()).isNotNull();
    }
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void tenantStatsCountEachTenantsOperationsAndRequests(boolean fair) throws Exception {
    try (RafeStore s = store(fair ? Fairness.on() : Fairness.off())) {
      RafeStore a = s.forTenant("a");
      RafeStore b = s.forTenant("b.reports");
      for (int i = 0; i < 3; i++) {
        run(a.write("k" + i, new byte[100_000]));
      }
      for (int i = 0; i < 5; i++) {
        run(b.read("k" + (i % 3)));
      }
      Map<String, TenantStats> stats = s.tenantStats();
      assertThat(a.tenantStats()).isEqualTo(stats);
      TenantStats sa = stats.get("a");
      TenantStats sb = stats.get("b.reports");
      assertThat(sa.operations()).isEqualTo(3);
      assertThat(sb.operations()).isEqualTo(5);
      assertThat(sa.failures()).isZero();
      assertThat(sa.bytesWritten()).isGreaterThanOrEqualTo(3 * 100_000L);
      assertThat(sb.bytesRead()).isGreaterThanOrEqualTo(5 * 100_000L);
      assertThat(sb.bytesWritten()).isZero();
      assertThat(sa.requests()).isPositive();
      assertThat(sb.requests()).isPositive();
      assertThat(stats).doesNotContainKey("default");
      double shares = stats.values().stream().mapToDouble(TenantStats::receivedShare).sum();
      assertThat(shares).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
      assertThat(sa.p50()).isLessThanOrEqualTo(sa.p90());
      assertThat(sa.p90()).isLessThanOrEqualTo(sa.p99());
      assertThat(requestTenants).contains("a", "b.reports");
      assertThat(requestTenants).doesNotContain("default");
    }
  }

  @Test
  void writeBackUploadsActForTheViewsTenant() throws Exception {
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("tenant-journal");
    RafeStore.Builder b =
        RafeStore.builder()
            .writer("alice", SigningKeys.generate())
            .writeBack(WriteBack.journal(dir.resolve("journal")))
            .listener(
                new RafeStoreListener() {
                  @Override
                  public void cloudRequest(CloudRequest request) {
                    if (request.kind() == CloudRequest.Kind.PUT) {
                      requestTenants.add(request.tenant());
                    }
                  }
                });
    for (int i = 0; i < 4; i++) {
      b.cloud(new MemoryCloud("c" + i));
    }
    try (RafeStore s = b.build()) {
      RafeStore batch = s.forTenant("batch");
      JournaledWrite w = batch.blocking().writeBack("k", new byte[100_000]);
      batch.blocking().writeBack("small", new byte[10]);
      batch.blocking().flush();
      assertThat(w.onClouds()).isCompleted();
      assertThat(requestTenants).containsExactly("batch");
      assertThat(s.tenantStats().get("batch").bytesWritten()).isGreaterThanOrEqualTo(100_000);
    }
  }

  @Test
  void badTenantIdsAreRefusedNamingTheId() {
    try (RafeStore s = store(Fairness.off())) {
      assertThatThrownBy(() -> s.forTenant(""))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("tenant id must not be empty");
      assertThatThrownBy(() -> s.forTenant(null))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("tenant id");
      assertThatThrownBy(() -> s.forTenant("web app"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'web app'")
          .hasMessageContaining("forbidden character ' '");
      String longId = "x".repeat(65);
      assertThatThrownBy(() -> s.forTenant(longId))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(longId)
          .hasMessageContaining("longer than 64");
    }
    assertThatThrownBy(() -> RafeStore.builder().tenant("a/b", TenantShare.DEFAULT))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'a/b'");
  }

  @Test
  void badSharesAndFairnessSettingsAreRefused() {
    assertThatThrownBy(() -> TenantShare.weight(0)).hasMessageContaining("weight must be > 0");
    assertThatThrownBy(() -> TenantShare.weight(Double.NaN)).hasMessageContaining("weight");
    assertThatThrownBy(() -> TenantShare.weight(1).withReservation(-1))
        .hasMessageContaining("reservation");
    assertThatThrownBy(() -> TenantShare.weight(1).withReservation(100).withLimit(10))
        .hasMessageContaining("below its reservation");
    assertThat(TenantShare.weight(1).withLimit(Double.POSITIVE_INFINITY).hasLimit()).isFalse();
    assertThat(TenantShare.weight(1).withLimit(0).hasLimit()).isFalse();
    assertThatThrownBy(() -> Fairness.on().withCloudConcurrency(0))
        .hasMessageContaining("cloudConcurrency");
    assertThatThrownBy(() -> Fairness.on().withTenantBytesInFlight(0))
        .hasMessageContaining("tenantBytesInFlight");
    assertThatThrownBy(() -> Fairness.on().withCostUnitBytes(-1))
        .hasMessageContaining("costUnitBytes");
    assertThat(Fairness.off().enabled()).isFalse();
    assertThat(Fairness.on().cost(128 << 10)).isEqualTo(3.0);
  }
}
