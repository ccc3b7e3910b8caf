package io.rafestore.cli;

import io.rafestore.RafeStore;
import io.rafestore.RafeStoreListener;
import io.rafestore.ScrubEvent;
import io.rafestore.ScrubOptions;
import io.rafestore.ScrubStatus;
import io.rafestore.Scrubber;
import io.rafestore.config.StoreConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code rafestore scrub}: one pass of the background scrubber over every key, within a budget of
 * requests, egress and dollars per hour, repairing what it finds (or, with {@code --dry-run}, only
 * reporting it). It resumes an interrupted pass from its state file, kept by default under {@code
 * $XDG_STATE_HOME/rafestore/} ({@code ~/.local/state/rafestore/} when that is unset), one file per
 * configuration file. Prints a line per finding and repair as they happen and a summary at the end;
 * exit code 3 when something is still wrong afterwards (not repaired, lost, or found by a dry run).
 */
@Command(
    name = "scrub",
    description = {
      "Walks every key within a budget, verifies each (data part by part) and repairs what it",
      "finds; resumes where an interrupted scrub stopped. Exit code 3 if anything is still wrong."
    })
final class ScrubCommand extends StoreCommand {
  @Option(
      names = "--requests-per-hour",
      paramLabel = "N",
      description = "Requests the scrub may send per hour, over all clouds (default 36000).")
  long requestsPerHour = ScrubOptions.defaults().requestsPerHour();

  @Option(
      names = "--egress-per-hour",
      paramLabel = "SIZE",
      description =
          "Bytes it may download per hour: bytes, or a number with KiB, MiB or GiB"
              + " (default 1GiB).")
  String egressPerHour = "1GiB";

  @Option(
      names = "--dollars-per-hour",
      paramLabel = "USD",
      description =
          "USD it may spend per hour on requests and egress, at the clouds' list prices"
              + " (default 0.10).")
  double dollarsPerHour = ScrubOptions.defaults().dollarsPerHour();

  @Option(
      names = {"-n", "--dry-run"},
      description = "Verify only: report what is wrong, repair nothing.")
  boolean dryRun;

  @Option(
      names = "--state",
      paramLabel = "FILE",
      description =
          "Where the scrub keeps its cursor and counters (default: under $XDG_STATE_HOME/rafestore/,"
              + " else ~/.local/state/rafestore/).")
  Path state;

  @Option(
      names = "--restart",
      description = "Forget the saved cursor and counters: start from the first key.")
  boolean restart;

  @Option(
      names = "--passes",
      paramLabel = "N",
      description =
          "Passes over every key before it ends; 0 to go on until interrupted (default 1).")
  int passes = 1;

  private ScrubOptions options;
  private final List<ScrubEvent> events = new ArrayList<>();

  @Override
  void prepare(StoreConfig config) throws Exception {
    Path file = state != null ? state : defaultStateFile();
    try {
      options =
          ScrubOptions.defaults()
              .withRequestsPerHour(requestsPerHour)
              .withEgressBytesPerHour(parseSize(egressPerHour))
              .withDollarsPerHour(dollarsPerHour)
              .withDryRun(dryRun)
              .withPasses(passes)
              .withPauseBetweenPasses(java.time.Duration.ZERO)
              .withStateFile(file);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    if (restart && file != null) {
      Files.deleteIfExists(file);
    }
  }

  /**
   * One state file per configuration file, under the XDG state directory: its name carries a hash
   * of the configuration's absolute path, so two stores never share a cursor. Null when neither
   * {@code XDG_STATE_HOME} nor {@code HOME} is set (the scrub then keeps its state in memory).
   */
  private Path defaultStateFile() throws UsageException {
    Map<String, String> env = root.env();
    String xdg = env.get("XDG_STATE_HOME");
    String home = env.get("HOME");
    Path base;
    if (xdg != null && !xdg.isBlank()) {
      base = Path.of(xdg, "rafestore");
    } else if (home != null && !home.isBlank()) {
      base = Path.of(home, ".local", "state", "rafestore");
    } else {
      return null;
    }
    String config = root.configFile().toAbsolutePath().normalize().toString();
    byte[] hash;
    try {
      hash =
          java.security.MessageDigest.getInstance("SHA-256")
              .digest(config.getBytes(StandardCharsets.UTF_8));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
    return base.resolve("scrub-" + HexFormat.of().formatHex(hash, 0, 6) + ".state");
  }

  /** Bytes, or a whole number of KiB, MiB or GiB. */
  static long parseSize(String v) throws UsageException {
    String s = v.trim();
    long unit = 1;
    String[] suffixes = {"KiB", "MiB", "GiB"};
    for (int i = 0; i < suffixes.length; i++) {
      if (s.endsWith(suffixes[i])) {
        unit = 1L << (10 * (i + 1));
        s = s.substring(0, s.length() - 3).trim();
        break;
      }
    }
    try {
      return Math.multiplyExact(Long.parseLong(s), unit);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new UsageException(
          "--egress-per-hour: '"
              + v
              + "' is not a size; write bytes, or a number with KiB, MiB"
              + " or GiB");
    }
  }

  @Override
  void customize(RafeStore.Builder builder) {
    builder.listener(
        new RafeStoreListener() {
          @Override
          public void scrubEvent(ScrubEvent event) {
            synchronized (events) {
              events.add(event);
            }
            if (!json()) {
              synchronized (ScrubCommand.this) {
                out().println(describe(event));
                out().flush();
              }
            }
          }
        });
  }

  private static String describe(ScrubEvent e) {
    String what =
        switch (e.kind()) {
          case DAMAGE_FOUND -> "found " + e.detail() + " on " + e.cloudId();
          case REPAIRED -> "repaired " + e.detail();
          case REPAIR_FAILED -> "could not repair " + e.detail();
          case ONE_FAULT_FROM_LOSS -> e.detail();
          case LOST -> e.detail();
          case STATE_RESET -> e.detail();
          case PASS_COMPLETED -> e.detail();
        };
    return e.key().isEmpty() ? "scrub: " + what : e.key() + ": " + what;
  }

  @Override
  int run(RafeStore store, StoreConfig config) throws Exception {
    Scrubber scrubber = store.scrubber(options);
    ScrubStatus end;
    try {
      end = scrubber.start().get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      throw e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      end = scrubber.stop().join();
    }
    List<ScrubEvent> seen;
    synchronized (events) {
      seen = List.copyOf(events);
    }
    boolean wrong =
        seen.stream()
            .anyMatch(
                e ->
                    e.kind() == ScrubEvent.Kind.REPAIR_FAILED
                        || e.kind() == ScrubEvent.Kind.LOST
                        || (dryRun && e.kind() == ScrubEvent.Kind.DAMAGE_FOUND));
    if (json()) {
      Map<String, Object> o = Json.object();
      o.put("state", end.state().name());
      o.put("pass", end.pass());
      o.put("cursor", end.cursor().orElse(null));
      o.put("keysThisPass", end.keysThisPass());
      o.put("keysChecked", end.keysChecked());
      o.put("passesCompleted", end.passesCompleted());
      o.put("damageFound", end.damageFound());
      o.put("repaired", end.repaired());
      o.put("repairFailed", end.repairFailed());
      o.put("oneFaultFromLoss", end.oneFaultFromLoss());
      o.put("lost", end.lost());
      o.put("requests", end.requests());
      o.put("egressBytes", end.egressBytes());
      o.put("dollars", String.format(java.util.Locale.ROOT, "%.6f", end.dollars()));
      o.put("stateFile", options.stateFile().map(Path::toString).orElse(null));
      o.put("dryRun", dryRun);
      o.put("clean", !wrong);
      List<Object> list = new ArrayList<>();
      for (ScrubEvent e : seen) {
        Map<String, Object> j = Json.object();
        j.put("kind", e.kind().name());
        j.put("key", e.key());
        j.put("cloud", e.cloudId());
        j.put("detail", e.detail());
        list.add(j);
      }
      o.put("events", list);
      end.note().ifPresent(n -> o.put("note", n));
      printJson(o);
    } else {
      Optional<Path> file = options.stateFile();
      out().println(end);
      out()
          .println(
              file.map(f -> "state kept in " + f).orElse("state kept in memory only (no HOME)"));
    }
    return wrong ? ExitCodes.INTEGRITY : ExitCodes.OK;
  }
}
