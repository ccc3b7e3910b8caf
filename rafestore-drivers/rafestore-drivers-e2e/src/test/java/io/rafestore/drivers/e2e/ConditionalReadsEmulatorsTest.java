package io.rafestore.drivers.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.BlockingRafeStore;
import io.rafestore.RafeStore;
import io.rafestore.SigningKeys;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.TaggedGet;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * readM over the four real drivers asks conditional gets, and each emulator answers a log it sent
 * before "unchanged" (issue 16, the cost of reads): MinIO and Azurite with 304 to If-None-Match,
 * fake-gcs-server through the generation, Redis through the tagging script. A changed log is sent
 * in full, so reads still see every write.
 */
class ConditionalReadsEmulatorsTest {
  private static final KeyPair ALICE = SigningKeys.generate();

  /** Counts the answers to conditional gets; passes the capability and the requests on. */
  private static final class Counting extends ForwardingCloud {
    final AtomicLong unchanged = new AtomicLong();
    final AtomicLong full = new AtomicLong();
    final CountDownLatch firstUnchanged = new CountDownLatch(1);

    Counting(CloudDriver inner) {
      super(inner);
    }

    @Override
    public boolean conditionalGets() {
      return delegate().conditionalGets();
    }

    @Override
    public CompletableFuture<TaggedGet> getTagged(
        ObjectKey key, Optional<ByteRange> range, Optional<String> ifNoneMatch) {
      CompletableFuture<TaggedGet> f = delegate().getTagged(key, range, ifNoneMatch);
      f.thenAccept(
          t -> {
            if (t.unchanged()) {
              unchanged.incrementAndGet();
              firstUnchanged.countDown();
            } else {
              full.incrementAndGet();
            }
          });
      return f;
    }
  }

  @Test
  void unchangedLogsAreAnsweredUnchangedByEveryEmulatorAndChangedOnesInFull() throws Exception {
    List<Counting> clouds =
        List.of(
            new Counting(Emulators.s3("minio")),
            new Counting(Emulators.azure("azurite")),
            new Counting(Emulators.gcs("fakegcs")),
            new Counting(Emulators.redis("redis")));
    RafeStore.Builder b =
        RafeStore.builder()
            .faultsTolerated(1)
            .writer("alice", ALICE)
            .trustWriter("alice", ALICE.getPublic());
    for (Counting c : clouds) {
      assertThat(c.conditionalGets()).as(c.id()).isTrue();
      b.cloud(c);
    }
    try (RafeStore rs = b.build()) {
      BlockingRafeStore s = rs.blocking();
      s.write("topic", utf8("first"));
      for (int i = 0; i < 6; i++) {
        assertThat(s.read("topic").utf8()).isEqualTo("first");
      }
      // A cloud among a read's first n - f answers sends its log in full once and then, asked with
      // its tag, answers unchanged; readM cancels the request of the cloud beyond the quorum (it
      // learns no tag then), so at least n - f = 3 of the four emulators answered unchanged.
      List<String> unchanged = new java.util.ArrayList<>();
      StringBuilder seen = new StringBuilder();
      for (Counting c : clouds) {
        if (c.firstUnchanged.getCount() == 0) {
          unchanged.add(c.id());
        }
        seen.append(c.id()).append(": ").append(c.full.get()).append(" full; ");
      }
      assertThat(unchanged)
          .as("emulators that answered unchanged (%s)", seen)
          .hasSizeGreaterThanOrEqualTo(3);

      s.write("topic", utf8("second"));
      assertThat(s.read("topic").utf8()).isEqualTo("second");
      assertThat(s.read("topic").utf8()).isEqualTo("second");
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
