package io.rafestore.drivers.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.BlockingRafeStore;
import io.rafestore.RafeStore;
import io.rafestore.RepairReport;
import io.rafestore.SigningKeys;
import io.rafestore.VerifyReport;
import io.rafestore.WriteReceipt;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import java.security.KeyPair;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 22's two scenarios on the real servers: a 20 MiB value in three parts on two holders, each
 * corrupt in a different part behind RafeStore's back (MinIO and fake-gcs-server both joined
 * objects; Redis part objects and a MinIO joined object, in both orders). One repair pass must
 * leave every object byte-exact with what the writer stored, after which either holder alone serves
 * the value.
 */
class PartRepairEmulatorsTest {
  private static final KeyPair ALICE = SigningKeys.generate();
  private static final int PART = 8 * 1024 * 1024;
  private static final int SIZE = 20 * 1024 * 1024;
  private static final String KEY = "big-value";

  /** Each server's objects under {@code prefix}: name to the SHA-256 of its bytes. */
  private static Map<String, String> digests(CloudDriver raw, String prefix) throws Exception {
    Map<String, String> out = new TreeMap<>();
    for (ObjectInfo o : raw.list(prefix).get(60, TimeUnit.SECONDS)) {
      byte[] b = raw.get(o.key(), Optional.empty()).get(60, TimeUnit.SECONDS);
      out.put(
          o.key().value(),
          HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(b)));
    }
    return out;
  }

  /**
   * Flips a byte of stored part {@code part} on a server, through a second driver of that server
   * (its own SDK client, not the store's): inside the joined object or in the part object.
   */
  private static void corrupt(CloudDriver raw, int part, long partLength) throws Exception {
    List<ObjectInfo> objects = raw.list("d/" + KEY + "/").get(60, TimeUnit.SECONDS);
    ObjectKey target = null;
    long at = 7;
    if (objects.size() == 1) {
      target = objects.get(0).key();
      at = part * partLength + 7;
    } else {
      for (ObjectInfo o : objects) {
        if (o.key().value().endsWith(".p" + part)) {
          target = o.key();
        }
      }
    }
    assertThat(target).as("part %d on %s", part, raw.id()).isNotNull();
    byte[] b = raw.get(target, Optional.empty()).get(60, TimeUnit.SECONDS);
    b[(int) at] ^= 1;
    raw.put(target, b).get(60, TimeUnit.SECONDS);
  }

  @ParameterizedTest(name = "{0} part 0 bad, {1} part 2 bad")
  @CsvSource({"minio, fakegcs", "redis, minio", "minio, redis"})
  void twoHoldersCorruptInDifferentPartsAreRepairedInOnePass(String first, String second)
      throws Exception {
    RawServers servers = new RawServers();
    Map<String, CloudDriver> drivers = new LinkedHashMap<>();
    Map<String, CloudDriver> raw = new LinkedHashMap<>();
    for (String id : List.of(first, second, "minio", "fakegcs", "azurite", "redis")) {
      if (!drivers.containsKey(id)) {
        drivers.put(id, open(servers, id));
        raw.put(id, open(servers, id));
      }
    }
    // The data goes to the first f + 1 clouds added: the two holders under test.
    RafeStore.Builder b =
        RafeStore.builder()
            .faultsTolerated(1)
            .writer("alice", ALICE)
            .partSize(PART)
            .maxValueBytes(64L * 1024 * 1024)
            .dataCloudsInOrderAdded(true);
    drivers.values().forEach(b::cloud);
    try (RafeStore rs = b.build()) {
      BlockingRafeStore s = rs.blocking();
      byte[] v = new byte[SIZE];
      new Random(22).nextBytes(v);
      WriteReceipt w = s.write(KEY, v);
      assertThat(w.info().dataClouds()).contains(first, second);
      Map<String, Map<String, String>> written = new LinkedHashMap<>();
      for (String id : List.of(first, second)) {
        written.put(id, digests(raw.get(id), "d/" + KEY + "/"));
      }
      long partLength = (SIZE + 2) / 3;
      corrupt(raw.get(first), 0, partLength);
      corrupt(raw.get(second), 2, partLength);
      assertThat(s.read(KEY).value()).as("reads pick valid parts").isEqualTo(v);
      VerifyReport broken = s.verify(KEY);
      assertThat(broken.findingsFor(first)).isNotEmpty();
      assertThat(broken.findingsFor(second)).isNotEmpty();
      assertThat(broken.oneFaultFromLoss()).as(broken.toString()).isTrue();

      RepairReport repair = s.repair(KEY);
      assertThat(repair.failures()).as(repair.toString()).isEmpty();
      assertThat(repair.isClean()).as(repair.toString()).isTrue();
      for (String id : List.of(first, second)) {
        assertThat(digests(raw.get(id), "d/" + KEY + "/")).as(id).isEqualTo(written.get(id));
      }
      VerifyReport clean = s.verify(KEY);
      assertThat(clean.isClean()).as(clean.toString()).isTrue();
      assertThat(clean.faultsSurvivable()).hasValue(w.info().dataClouds().size() - 1);

      // One pass was enough: the first holder loses everything, and the value is still whole.
      for (ObjectInfo o : raw.get(first).list("").get(60, TimeUnit.SECONDS)) {
        raw.get(first).delete(o.key()).get(60, TimeUnit.SECONDS);
      }
      assertThat(s.read(KEY).value()).isEqualTo(v);
    } finally {
      raw.values().forEach(CloudDriver::close);
    }
  }

  private static CloudDriver open(RawServers servers, String id) throws Exception {
    return switch (id) {
      case "minio" -> servers.minio(id);
      case "fakegcs" -> servers.gcs(id);
      case "azurite" -> servers.azurite(id);
      case "redis" -> servers.redis(id);
      default -> throw new IllegalArgumentException(id);
    };
  }
}
