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
 * A 1 GiB value written and read back through the streaming API by a JVM whose heap is limited to
 * 256 MB, on four directory-backed clouds: memory is bounded by the part window, not the value.
 */
class LargeStreamTest {
  static final long SIZE = 1L << 30;

  @TempDir Path dir;

  @Test
  void oneGibibyteThroughA256MegabyteHeap() throws Exception {
    run(SIZE, "-Xmx256m", "plain");
  }

  /** The confidentiality option seals every part on its own: a value 4x the heap, sealed. */
  @Test
  void halfAGibibyteSealedThroughA128MegabyteHeap() throws Exception {
    run(SIZE / 2, "-Xmx128m", "sealed");
  }

  private void run(long size, String heap, String mode) throws Exception {
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
            List.of(heap),
            dir.resolve("child.log"),
            Duration.ofSeconds(170),
            dir.resolve("clouds").toString(),
            Long.toString(size),
            mode);
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
