package io.rafestore.drivers.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.BlockingRafeStore;
import io.rafestore.CollectionReport;
import io.rafestore.RafeStore;
import io.rafestore.RepairReport;
import io.rafestore.RetentionPolicy;
import io.rafestore.SigningKeys;
import io.rafestore.VerifyReport;
import io.rafestore.Version;
import io.rafestore.VersionCollectedException;
import io.rafestore.spi.CloudDriver;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Garbage collection then repair on the four real servers: the history shrinks, collected data
 * objects are gone from every server (as listed through each server's own API), a server that lost
 * every object of the key is repaired from the others, and verify is clean afterwards.
 */
class GcRepairEmulatorsTest {
  private static final KeyPair ALICE = SigningKeys.generate();
  private static final String KEY = "gc-thread";
  private static final String DATA = "d/" + KEY + "/";
  private static final String META = "m/" + KEY + "/";

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Every server's objects under {@code prefix}, by server, through the raw SDKs. */
  private static Map<String, List<String>> raw(RawServers servers, String prefix) throws Exception {
    Map<String, List<String>> out = new LinkedHashMap<>();
    out.put("minio", servers.minioList(prefix));
    out.put("azurite", servers.azuriteList(prefix));
    out.put("fakegcs", servers.gcsList(prefix));
    out.put("redis", servers.redisList(prefix));
    return out;
  }

  @Test
  void collectThenLoseAServerThenRepair() throws Exception {
    RawServers servers = new RawServers();
    List<CloudDriver> clouds =
        List.of(
            servers.minio("minio"),
            servers.azurite("azurite"),
            servers.gcs("fakegcs"),
            servers.redis("redis"));
    // Values as data objects (not inline): the test collects and repairs data on the emulators.
    RafeStore.Builder b =
        RafeStore.builder().faultsTolerated(1).inlineThreshold(0).writer("alice", ALICE);
    clouds.forEach(b::cloud);
    try (RafeStore rs = b.build()) {
      BlockingRafeStore s = rs.blocking();
      List<Version> versions = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        versions.add(s.write(KEY, utf8("post " + i)).version());
      }
      Map<String, List<String>> before = raw(servers, DATA);
      Set<String> allBefore = new HashSet<>();
      before.values().forEach(allBefore::addAll);
      assertThat(allBefore).hasSize(12);

      CollectionReport report = s.collect(KEY, RetentionPolicy.keepLast(3));
      assertThat(report.versionsCollected()).hasSize(9);
      assertThat(report.logEntriesAfter()).isEqualTo(4);
      assertThat(s.history(KEY, Optional.empty(), 100).versions()).hasSize(3);
      try {
        s.read(KEY, versions.get(0));
        throw new AssertionError("a collected version was read");
      } catch (VersionCollectedException expected) {
        assertThat(expected.collectedThrough()).isEqualTo(versions.get(8));
      }

      Map<String, List<String>> after = raw(servers, DATA);
      Set<String> allAfter = new HashSet<>();
      after.values().forEach(allAfter::addAll);
      assertThat(allAfter).as("data objects left on all servers").hasSize(3);
      for (Map.Entry<String, List<String>> e : after.entrySet()) {
        assertThat(before.get(e.getKey())).containsAll(e.getValue());
      }
      assertThat(report.totalObjectsDeleted())
          .isEqualTo(
              before.values().stream().mapToInt(List::size).sum()
                  - after.values().stream().mapToInt(List::size).sum());
      VerifyReport clean = Emulators.verifyPastStalls(s, KEY);
      assertThat(clean.isClean()).as(clean.toString()).isTrue();

      // MinIO loses every object of the key behind RafeStore's back.
      List<String> lost = new ArrayList<>(servers.minioList(DATA));
      lost.addAll(servers.minioList(META));
      assertThat(lost).isNotEmpty();
      lost.forEach(servers::minioDelete);
      assertThat(servers.minioList(META)).isEmpty();
      VerifyReport broken = Emulators.verifyPastStalls(s, KEY);
      assertThat(broken.isClean()).isFalse();
      assertThat(broken.findingsFor("minio")).isNotEmpty();
      assertThat(broken.findings()).allMatch(f -> f.cloudId().equals("minio"));

      RepairReport repaired = s.repair(KEY);
      assertThat(repaired.isClean()).as(repaired.toString()).isTrue();
      assertThat(servers.minioList(META)).containsExactly(META + "alice");
      // Repair restores what the retained versions list on MinIO; a surplus upload that landed
      // there
      // (a write's cancelled extra copy, which verify reports as an extra object, never a holder)
      // is not a copy anything needs, so it is not brought back.
      List<String> heldByMinio = new ArrayList<>(after.get("minio"));
      heldByMinio.removeAll(clean.extraObjects().getOrDefault("minio", List.of()));
      assertThat(servers.minioList(DATA)).isEqualTo(heldByMinio);
      VerifyReport afterRepair = Emulators.verifyPastStalls(s, KEY);
      assertThat(afterRepair.isClean()).as(afterRepair.toString()).isTrue();
      assertThat(s.read(KEY).utf8()).isEqualTo("post 11");
    }
  }
}
