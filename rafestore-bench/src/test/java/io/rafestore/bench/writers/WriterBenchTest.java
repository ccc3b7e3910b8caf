package io.rafestore.bench.writers;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs WriterBench briefly and checks its report's shape and the request counts it measures. */
class WriterBenchTest {

  @Test
  void shortRunWritesTheTableAndTheTargets(@TempDir Path dir) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        WriterBench.run(
            new String[] {"--levels", "1,20", "--keys", "2", "--out", dir.toString()},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String report = Files.readString(dir.resolve("writers.md"), StandardCharsets.UTF_8);
    assertThat(code).as(err.toString(StandardCharsets.UTF_8) + report).isIn(0, 1);
    assertThat(report)
        .contains("| mode | W | requests/read |")
        .contains("| CERTIFIED | 20 |")
        .contains("| LISTING | 20 |")
        .contains("| PER_WRITER | 20 |")
        .contains("CERTIFIED requests per read W=20 vs W=1")
        .contains("LISTING requests per read W=20 vs W=1")
        .contains("LISTING warm read latency");
    // Explicit trust asks every cloud for every writer: at least 4 x 20 GETs per read at W = 20.
    WriterBench.Cell perWriter =
        WriterBench.cell(WriterBench.Setup.PER_WRITER, 20, 1, keys(20), 23);
    assertThat(perWriter.requestsPerRead()).isGreaterThanOrEqualTo(80);
    WriterBench.Cell listing = WriterBench.cell(WriterBench.Setup.LISTING, 20, 1, keys(20), 23);
    assertThat(listing.requestsPerRead()).isLessThan(20);
    // A reader with the operator key alone: as few requests per read as explicit listing; its
    // start read the 20 certificates (one GET per cloud each) and listed c/ on every cloud.
    WriterBench.Cell certified = WriterBench.cell(WriterBench.Setup.CERTIFIED, 20, 1, keys(20), 23);
    assertThat(certified.requestsPerRead()).isLessThan(20);
    assertThat(certified.startRequests()).isGreaterThanOrEqualTo(4 * 20 + 4);
  }

  private static java.util.List<java.security.KeyPair> keys(int n) {
    java.util.List<java.security.KeyPair> out = new java.util.ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(io.rafestore.SigningKeys.generate());
    }
    return out;
  }
}
