package io.rafestore.drivers.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.BlockingRafeStore;
import io.rafestore.RafeStore;
import io.rafestore.SigningKeys;
import io.rafestore.StoredValue;
import io.rafestore.drivers.redis.RedisCloud;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ObjectInfo;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The RafeStore protocol with f = 1 over the four real emulators (MinIO, Azurite, fake-gcs-server,
 * Redis): round trips, a cloud that is down, and a cloud whose stored bytes were tampered with
 * behind the client's back.
 */
class FourCloudsTest {
  private static final KeyPair ALICE = SigningKeys.generate();

  private static RafeStore store(CloudDriver... clouds) {
    RafeStore.Builder b =
        RafeStore.builder()
            .faultsTolerated(1)
            .writer("alice", ALICE)
            .trustWriter("alice", ALICE.getPublic());
    for (CloudDriver c : clouds) {
      b.cloud(c);
    }
    return b.build();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void writesReadsAndHistoryAcrossFourRealClouds() throws Exception {
    byte[] big = new byte[3 * 1024 * 1024];
    new Random(11).nextBytes(big);
    try (RafeStore rs =
        store(
            Emulators.s3("minio"),
            Emulators.azure("azurite"),
            Emulators.gcs("fakegcs"),
            Emulators.redis("redis"))) {
      BlockingRafeStore s = rs.blocking();
      s.write("thread/1", utf8("first post"));
      s.write("thread/1", utf8("second post"));
      s.write("blob", big);

      assertThat(s.read("thread/1").utf8()).isEqualTo("second post");
      assertThat(s.read("blob").value()).isEqualTo(big);
      assertThat(s.history("thread/1", Optional.empty(), 10).versions()).hasSize(2);
      s.delete("blob");
    }
  }

  @Test
  void toleratesOneCloudThatIsDown() throws Exception {
    // Nothing listens on 127.0.0.1:1: every request to this cloud is refused at once.
    RedisCloud down =
        RedisCloud.builder("down")
            .uri(URI.create("redis://127.0.0.1:1"))
            .connectTimeout(Duration.ofSeconds(1))
            .build();
    try (RafeStore rs =
        store(Emulators.s3("minio"), Emulators.azure("azurite"), Emulators.gcs("fakegcs"), down)) {
      BlockingRafeStore s = rs.blocking();
      s.write("k", utf8("survives"));
      assertThat(s.read("k").utf8()).isEqualTo("survives");
    }
  }

  @Test
  void readIgnoresACloudWhoseObjectsWereTampered() throws Exception {
    String prefix = Emulators.fresh() + "/";
    CloudDriver redis = Emulators.redis("redis", prefix);
    // A second handle on the same namespace: the attacker with write access to that cloud.
    RedisCloud attacker = Emulators.redis("attacker", prefix);
    try (attacker;
        RafeStore rs =
            store(
                Emulators.s3("minio"),
                Emulators.azure("azurite"),
                Emulators.gcs("fakegcs"),
                redis)) {
      BlockingRafeStore s = rs.blocking();
      s.write("secret", utf8("the real value"));

      List<ObjectInfo> objects = attacker.list("").get(60, TimeUnit.SECONDS);
      assertThat(objects).isNotEmpty();
      Random garbage = new Random(5);
      for (ObjectInfo o : objects) {
        byte[] forged = new byte[(int) Math.max(1, o.size())];
        garbage.nextBytes(forged);
        attacker.put(o.key(), forged).get(60, TimeUnit.SECONDS);
      }

      StoredValue read = s.read("secret");
      assertThat(read.utf8()).isEqualTo("the real value");
    }
  }
}
