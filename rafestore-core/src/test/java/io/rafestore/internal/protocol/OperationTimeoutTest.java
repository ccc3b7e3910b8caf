package io.rafestore.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.CloudStats;
import io.rafestore.ProtocolMode;
import io.rafestore.RafeStore;
import io.rafestore.WriteReceipt;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A write the operation timeout ends while its data still uploads stops uploading: the paper's
 * Table 1 links (2 Mbit/s to the remote clouds), a 1 MiB value that needs about 4 s to reach a
 * remote holder, a 2 s timeout. In the paper's modes and the DepSky baselines, whole, in parts
 * (part objects or a cloud's native multipart upload), coded or coded in parts, sealed, nothing
 * lands on any cloud after the caller was told the write failed, the uploads are counted cancelled,
 * and no native upload is left open. Writes with part objects and the DepSky baselines kept
 * uploading before (`Futures.compose`, `DepSkyWriteOp.ended`); a native upload's parts land only
 * when it completes.
 */
class OperationTimeoutTest {
  static final String KEY = "feed/item";

  @ParameterizedTest
  @CsvSource({
    "PAPER, whole",
    "DEPSKY_A, whole",
    "DEPSKY_CA, whole",
    "FAST, whole",
    "FAST, parts",
    "FAST, native parts",
    "FAST, coded",
    "FAST, coded parts",
    "FAST, sealed",
    "FAST, sealed parts"
  })
  void aTimedOutWriteCancelsItsUploads(ProtocolMode mode, String layout) throws Exception {
    Harness h =
        layout.startsWith("native")
            ? withLinks(
                new Harness(
                    1,
                    4,
                    i -> io.rafestore.clouds.MemoryCloud.withMultipart("p" + i, 1024, 10_000)))
            : AnticipatedReadTest.table1();
    RafeStore.Builder b =
        AnticipatedReadTest.laidOut(
            AnticipatedReadTest.config2(h, mode).operationTimeout(Duration.ofSeconds(2)), layout);
    try (RafeStore store = b.build()) {
      Map<String, CloudStats> before = store.stats();
      CompletableFuture<WriteReceipt> write =
          store.write(KEY, AnticipatedReadTest.bytes(1 << 20, 31));
      assertThatThrownBy(() -> h.run(write))
          .hasRootCauseInstanceOf(java.util.concurrent.TimeoutException.class);
      long atTimeout = stored(h);
      h.scheduler.runUntilIdle();
      assertThat(stored(h)).as("bytes that landed after the timeout").isEqualTo(atTimeout);
      assertThat(AnticipatedReadTest.since(store, before, CloudStats::cancelled, "p1", "p2", "p3"))
          .as("uploads cancelled at the timeout")
          .isPositive();
      for (io.rafestore.clouds.MemoryCloud m : h.stores) {
        assertThat(m.openUploads()).as("native uploads left open on " + m.id()).isZero();
      }
    }
  }

  /** Table 1's round trips and links, as {@link AnticipatedReadTest#table1}, for {@code h}. */
  private static Harness withLinks(Harness h) {
    h.rtts(Harness.table1());
    h.clouds.get(0).bandwidth(100_000_000);
    for (int i = 1; i < 4; i++) {
      h.clouds.get(i).bandwidth(2_000_000);
    }
    return h;
  }

  private static long stored(Harness h) {
    long bytes = 0;
    for (io.rafestore.clouds.MemoryCloud m : h.stores) {
      bytes += m.storedBytes();
    }
    return bytes;
  }
}
