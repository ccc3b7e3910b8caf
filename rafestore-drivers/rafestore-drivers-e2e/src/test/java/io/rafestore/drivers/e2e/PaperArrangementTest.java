package io.rafestore.drivers.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.CloudFault;
import io.rafestore.CloudRole;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.RafeStoreListener;
import io.rafestore.SigningKeys;
import io.rafestore.StoredValue;
import io.rafestore.WriteReceipt;
import io.rafestore.drivers.redis.RedisCloud;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ObjectInfo;
import io.rafestore.spi.ObjectKey;
import java.net.URI;
import java.security.KeyPair;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * RafeStore with f=1 across the four real local servers, arranged as the paper's Configuration 1:
 * Redis is the fast local p0 (data), MinIO p1 (data), Azurite p2 (writeDf's extra data cloud) and
 * fake-gcs-server p3 (metadata only).
 */
class PaperArrangementTest {
  static final KeyPair KEYS = SigningKeys.generate();
  RawServers servers;
  List<CloudDriver> drivers;
  final List<CloudFault> faults = new CopyOnWriteArrayList<>();

  @BeforeEach
  void connect() throws Exception {
    servers = new RawServers();
    drivers =
        List.of(servers.redis("p0"), servers.minio("p1"), servers.azurite("p2"), servers.gcs("p3"));
  }

  @AfterEach
  void close() {
    drivers.forEach(CloudDriver::close);
  }

  RafeStore store(ProtocolMode mode) {
    return RafeStore.builder()
        .faultsTolerated(1)
        .mode(mode)
        .writer("it-writer", KEYS)
        // The paper's arrangement: values as data objects on the data clouds, never inline.
        .inlineThreshold(0)
        .dataCloudsInOrderAdded(true)
        .cloud(drivers.get(0), CloudRole.DATA_AND_METADATA)
        .cloud(drivers.get(1), CloudRole.DATA_AND_METADATA)
        .cloud(drivers.get(2), CloudRole.DATA_AND_METADATA)
        .cloud(drivers.get(3), CloudRole.METADATA_ONLY)
        .closeDrivers(false)
        .operationTimeout(Duration.ofMinutes(2))
        .listener(
            new RafeStoreListener() {
              @Override
              public void cloudFault(String key, CloudFault fault) {
                faults.add(fault);
              }
            })
        .build();
  }

  static byte[] random(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }

  @ParameterizedTest
  @EnumSource(
      value = ProtocolMode.class,
      names = {"PAPER", "FAST"})
  void writesAndReadsFromOneKilobyteToSixteenMegabytes(ProtocolMode mode) throws Exception {
    try (RafeStore store = store(mode)) {
      int[] sizes = {1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20};
      for (int size : sizes) {
        byte[] value = random(size, size);
        WriteReceipt r = store.blocking().write("sizes/" + size, value);
        assertThat(r.info().dataClouds()).hasSizeGreaterThanOrEqualTo(2).doesNotContain("p3");
        StoredValue back = store.blocking().read("sizes/" + size);
        assertThat(back.value()).as("%d bytes", size).isEqualTo(value);
        assertThat(back.version()).isEqualTo(r.version());
      }
    }
  }

  /** The one data object of a key written once, as named on cloud {@code index}. */
  String dataObject(int index, String key) throws Exception {
    List<ObjectInfo> objects = drivers.get(index).list("d/" + key + "/").get(60, TimeUnit.SECONDS);
    assertThat(objects).hasSize(1);
    return objects.get(0).key().value();
  }

  /** Reads until {@code cloud}'s fault of {@code kind} is seen (readM waits for only n - f). */
  void readUntilReported(
      RafeStore store, String key, byte[] expected, String cloud, CloudFault.Kind kind)
      throws Exception {
    faults.clear();
    for (int i = 0; i < 20; i++) {
      StoredValue r = store.blocking().read(key);
      assertThat(r.value()).isEqualTo(expected);
      if (faults.stream().anyMatch(f -> f.cloudId().equals(cloud) && f.kind() == kind)) {
        return;
      }
    }
    assertThat(faults)
        .as("faults reported while reading " + key)
        .anySatisfy(
            f -> {
              assertThat(f.cloudId()).isEqualTo(cloud);
              assertThat(f.kind()).isEqualTo(kind);
            });
  }

  @Test
  void tamperingBehindRafeStoresBackIsMaskedAndReported() throws Exception {
    try (RafeStore store = store(ProtocolMode.PAPER)) {
      // Data on p0 (Redis) overwritten with other bytes through Redis itself.
      byte[] a = random(50_000, 1);
      store.blocking().write("tamper-a", a);
      servers.redisOverwrite(dataObject(0, "tamper-a"), random(50_000, 99));
      readUntilReported(store, "tamper-a", a, "p0", CloudFault.Kind.CORRUPT_DATA);

      // Data on p0 deleted through Redis.
      byte[] b = random(50_000, 2);
      store.blocking().write("tamper-b", b);
      servers.redisDelete(dataObject(0, "tamper-b"));
      readUntilReported(store, "tamper-b", b, "p0", CloudFault.Kind.MISSING_DATA);

      // Metadata on p2 (Azurite) replaced with an older, validly signed log.
      String meta = "m/tamper-c/it-writer";
      store.blocking().write("tamper-c", random(1000, 3));
      byte[] oldLog = drivers.get(2).get(ObjectKey.of(meta)).get(60, TimeUnit.SECONDS);
      byte[] c = random(1000, 4);
      store.blocking().write("tamper-c", c);
      servers.azuriteUpload(meta, oldLog);
      readUntilReported(store, "tamper-c", c, "p2", CloudFault.Kind.STALE_METADATA);

      // Metadata on p1 (MinIO) deleted, and on p3 (fake-gcs-server) garbled: one at a time.
      byte[] d = random(1000, 5);
      store.blocking().write("tamper-d", d);
      servers.minioDelete("m/tamper-d/it-writer");
      readUntilReported(store, "tamper-d", d, "p1", CloudFault.Kind.STALE_METADATA);
      byte[] e = random(1000, 6);
      store.blocking().write("tamper-e", e);
      servers.gcsUpload("m/tamper-e/it-writer", random(300, 7));
      readUntilReported(store, "tamper-e", e, "p3", CloudFault.Kind.MALFORMED_METADATA);
    }
  }

  @Test
  void aServerStoppedMidRunDoesNotStopRafeStore() throws Exception {
    int port = 19011;
    Process redis =
        new ProcessBuilder(
                "redis-server",
                "--port",
                String.valueOf(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no")
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    RedisCloud local =
        RedisCloud.builder("p0")
            .uri(URI.create("redis://127.0.0.1:" + port))
            .keyPrefix("stop/")
            .build();
    try {
      waitForPing(local);
      drivers = List.of(local, drivers.get(1), drivers.get(2), drivers.get(3));
      try (RafeStore store = store(ProtocolMode.PAPER)) {
        Map<Integer, byte[]> values = new java.util.HashMap<>();
        for (int i = 0; i < 20; i++) {
          if (i == 10) {
            redis.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
          }
          byte[] v = random(10_000, i);
          values.put(i, v);
          store.blocking().write("stop/" + i, v);
          assertThat(store.blocking().read("stop/" + i).value()).as("op %d", i).isEqualTo(v);
        }
        // Values written before the stop are still readable from the other holder.
        assertThat(store.blocking().read("stop/3").value()).isEqualTo(values.get(3));
        assertThat(faults).anySatisfy(f -> assertThat(f.cloudId()).isEqualTo("p0"));
      }
    } finally {
      redis.destroyForcibly();
      local.close();
    }
  }

  static void waitForPing(RedisCloud cloud) throws Exception {
    for (int i = 0; i < 100; i++) {
      try {
        cloud.list("").get(5, TimeUnit.SECONDS);
        return;
      } catch (Exception e) {
        TimeUnit.MILLISECONDS.sleep(100);
      }
    }
    throw new IllegalStateException("the test's redis-server did not start");
  }
}
