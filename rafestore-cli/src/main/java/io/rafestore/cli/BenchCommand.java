package io.rafestore.cli;

import io.rafestore.bench.paper.PaperBench;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * {@code rafestore bench [OPTIONS]}: the paper reproduction (the paper's Table 3 and Figure 3
 * against DepSky-A and DepSky-CA on the emulated WAN profiles), the same harness {@code
 * scripts/bench.sh} runs. Every argument goes to {@link PaperBench#run}; {@code rafestore bench
 * --help} lists them. Needs no configuration file: it builds its own in-memory clouds.
 */
@Command(
    name = "bench",
    description = {
      "Reproduces the paper's Table 3 and Figure 3 against DepSky-A/CA on emulated WAN profiles",
      "(in-memory clouds; no configuration needed). Options: 'rafestore bench --help'; e.g.",
      "'rafestore bench --quick --out DIR'."
    })
final class BenchCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Unmatched List<String> args = new ArrayList<>();

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try (PrintStream o = streamTo(out);
        PrintStream e = streamTo(err)) {
      return PaperBench.run(args.toArray(new String[0]), o, e);
    }
  }

  /** A print stream that forwards UTF-8 text to {@code writer}, line by line. */
  private static PrintStream streamTo(PrintWriter writer) {
    OutputStream bytes =
        new OutputStream() {
          private final java.io.ByteArrayOutputStream pending = new java.io.ByteArrayOutputStream();

          @Override
          public void write(int b) {
            pending.write(b);
            if (b == '\n' || b == '\r') {
              flush();
            }
          }

          @Override
          public void flush() {
            writer.write(pending.toString(StandardCharsets.UTF_8));
            pending.reset();
            writer.flush();
          }

          @Override
          public void close() {
            flush();
          }
        };
    return new PrintStream(bytes, true, StandardCharsets.UTF_8);
  }
}
