package io.rafestore;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A value four times the heap written and read back through the streaming API by a JVM of its own,
 * on four directory-backed clouds: memory is bounded by the part window, not the value.
 *
 * <p>What proves the claim is the ratio, not the size: the value is four times the child's heap and
 * the part window ({@code partsInFlight} 4 x the part size) an eighth of it, as with the 1 GiB
 * through 256 MB and 512 MiB sealed through 128 MB this test streamed until 2026-11-29, at a
 * quarter and a half of their bytes (the old sizes took 147 s of CI for no more coverage). Both
 * heaps are 64 MB: a smaller one leaves too little beside the window for what a JVM holds anyway (a
 * 32 MB child ran out of heap on 128 MiB sealed, and a 48 MB one on 192 MiB sealed in 3 MiB parts,
 * once in CI).
 */
class LargeStreamTest {
  static final long MIB = 1L << 20;

  @TempDir Path dir;

  @Test
  void fourTimesTheHeapThroughA64MegabyteHeap() throws Exception {
    run(256 * MIB, 64, 2 * MIB, "plain");
  }

  /** The confidentiality option seals every part on its own: a value 4x the heap, sealed. */
  @Test
  void fourTimesTheHeapSealedThroughA64MegabyteHeap() throws Exception {
    run(256 * MIB, 64, 2 * MIB, "sealed");
  }

  private void run(long size, int heapMib, long partSize, String mode) throws Exception {
    // The claim this test makes, whatever the sizes above become.
    assertThat(size).isGreaterThanOrEqualTo(4 * heapMib * MIB);
    assertThat(4 * partSize).isLessThanOrEqualTo(heapMib * MIB / 4);
    long free = Files.getFileStore(dir).getUsableSpace();
    if (free < 4 * size) {
      System.out.println(
          "LargeStreamTest skipped: "
              + (free >> 20)
              + " MB free in "
              + dir
              + ", needs "
              + (4 * size >> 20)
              + " MB");
    }
    Assumptions.assumeTrue(free >= 4 * size, "needs " + (4 * size >> 20) + " MB free in " + dir);
    ChildJvm.Result child =
        ChildJvm.run(
            LargeStreamMain.class,
            List.of("-Xmx" + heapMib + "m"),
            dir.resolve("child.log"),
            Duration.ofSeconds(170),
            dir.resolve("clouds").toString(),
            Long.toString(size),
            mode,
            Long.toString(partSize));
    boolean finished = child.finished();
    String out = child.output();
    System.out.println("LargeStreamTest child: " + out.strip());
    assertThat(finished).as("child finished within 170 s: " + out).isTrue();
    assertThat(child.exitValue()).as(out).isZero();
    assertThat(out).contains("size=" + size).contains("read=" + size).contains("maxHeap=");
    try (Stream<Path> files = Files.walk(dir.resolve("clouds"))) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
