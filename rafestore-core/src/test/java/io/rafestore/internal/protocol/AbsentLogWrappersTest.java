package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.RafeStore;
import io.rafestore.SigningKeys;
import io.rafestore.clouds.MemoryCloud;
import io.rafestore.clouds.VirtualScheduler;
import io.rafestore.spi.ByteRange;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.support.Futures;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A "not found" is an ordinary answer of readM (a trusted writer that never wrote the key, a key
 * written for the first time), and it travels from the driver through the client's decorators
 * (accounting, the latency model) to readM. It must not be wrapped in a new {@code
 * CompletionException} at each hop, as watching it with {@code whenComplete} did: each wrapper
 * fills in a stack trace, and a dozen of them per cloud were about a third of the client CPU of a
 * read of a changed key (rafestore-bench/report-notes.md, the run of 2026-11-29).
 */
class AbsentLogWrappersTest {
  private final VirtualScheduler clock = new VirtualScheduler();
  private final AtomicInteger wrapped = new AtomicInteger();
  private final AtomicInteger absent = new AtomicInteger();
  private final List<CloudDriver> clouds = new ArrayList<>();

  AbsentLogWrappersTest() {
    for (int i = 0; i < 4; i++) {
      clouds.add(new CountedAbsence(new MemoryCloud("c" + i)));
    }
  }

  /**
   * Answers "not found" with a failure that counts calls of its {@code toString}, which {@code new
   * CompletionException(cause)} makes for its message: the count is the wrappers made of it.
   */
  private final class CountedAbsence extends ForwardingCloud {
    CountedAbsence(CloudDriver delegate) {
      super(delegate);
    }

    @Override
    public CompletableFuture<byte[]> get(ObjectKey key, Optional<ByteRange> range) {
      return Futures.relayTranslating(
          delegate().get(key, range),
          e -> {
            if (e instanceof CloudException c && c.kind() == CloudException.Kind.NOT_FOUND) {
              absent.incrementAndGet();
              return new CloudException(id(), CloudException.Kind.NOT_FOUND, "no " + key) {
                private static final long serialVersionUID = 1L;

                @Override
                public String toString() {
                  wrapped.incrementAndGet();
                  return super.toString();
                }
              };
            }
            return e;
          });
    }
  }

  private RafeStore.Builder builder() {
    RafeStore.Builder b =
        RafeStore.builder()
            .faultsTolerated(1)
            .scheduler(clock)
            .executor(Runnable::run)
            .closeDrivers(false);
    for (CloudDriver c : clouds) {
      b.cloud(c);
    }
    return b;
  }

  private <T> T run(CompletableFuture<T> op) throws Exception {
    return clock.runUntilDone(op);
  }

  @Test
  void aLogThatDoesNotExistReachesReadMWithoutANewExceptionAtEachHop() throws Exception {
    KeyPair alice = SigningKeys.generate();
    KeyPair bob = SigningKeys.generate();
    try (RafeStore writer = builder().writer("alice", alice).build();
        RafeStore reader =
            builder()
                .trustWriter("alice", alice.getPublic())
                .trustWriter("bob", bob.getPublic())
                .build()) {
      for (int i = 0; i < 5; i++) {
        byte[] value = ("v" + i).getBytes(StandardCharsets.UTF_8);
        run(writer.write("k" + i, value));
        // bob never wrote: every cloud answers "not found" for his log of each key.
        assertThat(run(reader.read("k" + i)).value()).isEqualTo(value);
      }
      assertThat(absent.get()).as("absent logs asked for").isGreaterThanOrEqualTo(5 * 3);
      assertThat(wrapped.get()).as("CompletionExceptions made of them").isZero();
    }
  }
}
