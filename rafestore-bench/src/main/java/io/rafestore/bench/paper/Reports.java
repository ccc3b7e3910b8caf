package io.rafestore.bench.paper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Writes a run's results: {@code results.csv}, {@code results.md} (latency table, Table 3 beside
 * the paper's, price source) and one {@code latency-config<N>-<op>.svg} per configuration and
 * operation (latency against size on log-log axes, one line per protocol, like the paper's Figure
 * 3). Stateless.
 */
final class Reports {
  static final String CSV = "results.csv";
  static final String MARKDOWN = "results.md";

  /** The plot of the layout chosen at each size, per configuration (issue 16). */
  static final String LAYOUT_SVG = "layout-chosen.svg";

  /** The paper's Table 3 (writes out of 60 that contacted only f+1 data clouds), 1 KB..16 MB. */
  static final int[][] PAPER_TABLE3 = {
    {60, 59, 60, 52, 0, 0, 0, 0},
    {52, 54, 47, 58, 60, 53, 59, 46}
  };

  private Reports() {}

  static void writeAll(
      Path dir,
      WanProfile profile,
      PriceTable prices,
      double scale,
      PaperBench.Options options,
      List<Result> results)
      throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(CSV), csv(results), StandardCharsets.UTF_8);
    Files.writeString(
        dir.resolve(MARKDOWN),
        markdown(profile, prices, scale, options, results),
        StandardCharsets.UTF_8);
    if (results.stream().anyMatch(r -> !r.chosenLayout().isEmpty())) {
      Files.writeString(dir.resolve(LAYOUT_SVG), Svg.layoutPlot(results), StandardCharsets.UTF_8);
    }
    for (int config : new TreeSet<>(options.configs)) {
      for (String op : List.of("write", "read")) {
        Files.writeString(
            dir.resolve("latency-config" + config + "-" + op + ".svg"),
            Svg.latencyPlot(config, op, options.modesFor(config), results),
            StandardCharsets.UTF_8);
      }
    }
  }

  static String sizeLabel(long bytes) {
    if (bytes >= PaperBench.KB * PaperBench.KB && bytes % (PaperBench.KB * PaperBench.KB) == 0) {
      return bytes / (PaperBench.KB * PaperBench.KB) + "MB";
    }
    if (bytes >= PaperBench.KB && bytes % PaperBench.KB == 0) {
      return bytes / PaperBench.KB + "KB";
    }
    return bytes + "B";
  }

  static String csv(List<Result> results) {
    StringBuilder sb = new StringBuilder();
    sb.append(
        "config,mode,size_bytes,op,ops,failures,median_ms,p90_ms,p99_ms,floor_ms,median_over_floor,"
            + "only_needed_data_clouds,cancelled,cost_per_10k_usd,speculative_started,"
            + "speculative_kept,speculative_wasted,chosen_layout,phased_floor_ms,floor_layout,"
            + "seconds,virtual_median_ms,virtual_p90_ms,virtual_p99_ms,cpu_median_ms,cpu_p90_ms");
    List<String> clouds = new ArrayList<>();
    if (!results.isEmpty()) {
      // Columns follow the cloud ids (p0..p3), whatever each configuration's order.
      for (Result.CloudUse u : results.get(0).perCloud()) {
        clouds.add(u.cloud());
      }
      clouds.sort(null);
      for (String c : clouds) {
        sb.append(',').append(c).append("_requests,").append(c).append("_bytes_up,");
        sb.append(c).append("_bytes_down");
      }
    }
    sb.append('\n');
    for (Result r : results) {
      sb.append(
          String.format(
              Locale.ROOT,
              "%d,%s,%d,%s,%d,%d,%.3f,%.3f,%.3f,%.3f,%.4f,%d,%d,%.6f,%d,%d,%d,%s,%.3f,%s,%.2f,"
                  + "%.3f,%.3f,%.3f,%.3f,%.3f",
              r.config(),
              r.mode(),
              r.sizeBytes(),
              r.op(),
              r.ops(),
              r.failures(),
              r.medianMs(),
              r.p90Ms(),
              r.p99Ms(),
              r.floorMs(),
              r.medianOverFloor(),
              r.onlyFPlusOne(),
              r.cancelled(),
              r.costPer10kUsd(),
              r.speculative().started(),
              r.speculative().kept(),
              r.speculative().wasted(),
              r.chosenLayout().replace(',', ';'),
              r.phasedFloorMs(),
              r.floorLayout().replace(',', ';'),
              r.seconds(),
              r.virtual().medianMs(),
              r.virtual().p90Ms(),
              r.virtual().p99Ms(),
              r.virtual().cpuMedianMs(),
              r.virtual().cpuP90Ms()));
      for (String c : clouds) {
        Result.CloudUse u =
            r.perCloud().stream().filter(x -> x.cloud().equals(c)).findFirst().orElseThrow();
        sb.append(',').append(u.requests()).append(',').append(u.bytesUp());
        sb.append(',').append(u.bytesDown());
      }
      sb.append('\n');
    }
    return sb.toString();
  }

  static String markdown(
      WanProfile profile,
      PriceTable prices,
      double scale,
      PaperBench.Options options,
      List<Result> results) {
    StringBuilder sb = new StringBuilder();
    sb.append("# PaperBench results\n\n");
    if (options.virtual) {
      sb.append(
          String.format(
              Locale.ROOT,
              "Profile `%s` on **virtual time** (`--virtual`), time scale 1: the profile's own"
                  + " round trips and bandwidths, %s: writes, then as many reads, per cell, f = %d."
                  + " In-memory clouds behind the emulated WAN on a virtual scheduler, every"
                  + " callback on the bench thread. Per cell: the virtual latency (the network"
                  + " alone; deterministic), the CPU time the bench thread spent in the operation"
                  + " (the client's, the in-memory clouds' and the emulator's work; this machine's)"
                  + " and their per-operation sum, virtual + CPU, in the median, p90 and p99"
                  + " columns: a conservative estimate of the latency at time scale 1 on this"
                  + " machine, all CPU counted as if on the critical path.%n%n",
              profile.name(),
              options.opsDescription(),
              PaperBench.F));
    } else {
      sb.append(
          String.format(
              Locale.ROOT,
              "Profile `%s`, time scale %s (latencies below are divided by it: paper milliseconds),"
                  + " %s: writes, then as many reads, per cell, f = %d. In-memory clouds behind the"
                  + " emulated WAN, real time. Measured on whatever machine ran it; on a shared"
                  + " machine the numbers are noisy.%n%n",
              profile.name(),
              scale,
              options.opsDescription(),
              PaperBench.F));
    }
    if (!options.runInfo.isEmpty()) {
      sb.append(options.runInfo)
          .append(
              options.parallelConfigs
                  ? " The configurations ran at the same time (--parallel-configs)."
                  : "")
          .append("\n\n");
    }
    boolean virtual = options.virtual;
    sb.append(
        "| config | mode | size | op | failed | "
            + (virtual
                ? "virtual median ms | virtual/floor | CPU median ms | virtual + CPU median ms"
                    + " | p90 ms | p99 ms"
                : "median ms | p90 ms | p99 ms")
            + " | floor ms | floor layout"
            + (virtual ? " | (virtual + CPU)/floor" : " | median/floor")
            + " | needed clouds only | cancelled | anticipated kept/wasted"
            + " | requests per cloud | cost / 10k ops (USD) |\n");
    sb.append(
        "|---|---|---|---|---:|"
            + (virtual ? "---:|---:|---:|" : "")
            + "---:|---:|---:|---:|---|---:|---:|---:|---:|---|---:|\n");
    for (Result r : results) {
      StringBuilder perCloud = new StringBuilder();
      for (Result.CloudUse u : r.perCloud()) {
        if (perCloud.length() > 0) {
          perCloud.append(' ');
        }
        perCloud.append(u.cloud()).append(':').append(u.requests());
      }
      sb.append(
          String.format(
              Locale.ROOT,
              "| %d | %s | %s | %s | %d | %s%.1f | %.1f | %.1f | %.1f | %s | %.2f | %s | %d | %s"
                  + " | %s | %.4f |%n",
              r.config(),
              r.mode(),
              sizeLabel(r.sizeBytes()),
              r.op(),
              r.failures(),
              virtual
                  ? String.format(
                      Locale.ROOT,
                      "%.1f | %.2f | %.2f | ",
                      r.virtual().medianMs(),
                      r.virtual().medianMs() / r.floorMs(),
                      r.virtual().cpuMedianMs())
                  : "",
              r.medianMs(),
              r.p90Ms(),
              r.p99Ms(),
              r.floorMs(),
              r.floorLayout(),
              r.medianOverFloor(),
              r.onlyFPlusOne() < 0 ? "" : r.onlyFPlusOne() + "/" + r.ops(),
              r.cancelled(),
              r.op().equals("read") ? r.speculative().kept() + "/" + r.speculative().wasted() : "",
              perCloud,
              r.costPer10kUsd()));
    }
    sb.append('\n').append(table3(results));
    sb.append(floorsSection(profile, options));
    sb.append(layoutSection(results));
    sb.append("\n## Targets (issues 7, 16 and 21), ratios within this run\n\n");
    if (virtual) {
      sb.append(
          "These lines are computed from virtual time + CPU (each operation's virtual latency plus"
              + " the CPU time it took on this machine), not from virtual time alone.\n\n");
    }
    sb.append("```\n");
    for (String line : Targets.evaluate(results)) {
      sb.append(line).append('\n');
    }
    sb.append("```\n");
    sb.append("\nCosts use ")
        .append(prices.source())
        .append(
            ". A cell's cost counts every request the client started in the phase and what the"
                + " phase left running (metadata puts beyond the quorum; for inline values the"
                + " packer's packs and its own writeM), the harness waiting until the client is"
                + " idle before it reads the counters; the bytes each cloud sent for every get it"
                + " served, cancelled ones included (egress); and for writes one month of storage"
                + " of the bytes uploaded.\n");
    return sb.toString();
  }

  /**
   * Every layout's write floor at each configuration and size of the run ({@link
   * Floors#writeLayouts}): with the log sent together with the data, and after it (RafeStore's
   * writeDo, then writeM), so a reader sees which layout sets the floor and how far RafeStore's
   * sequence of phases is above it before any code runs.
   */
  static String floorsSection(WanProfile profile, PaperBench.Options options) {
    List<String> names = new ArrayList<>();
    for (int config : options.configs) {
      for (Floors.WriteFloor w :
          Floors.writeLayouts(profile, profile.arrangement(config), PaperBench.F, PaperBench.KB)) {
        if (!names.contains(w.layout())) {
          names.add(w.layout());
        }
      }
    }
    StringBuilder sb = new StringBuilder();
    sb.append("\n## Write floors per layout (paper ms, from the profile)\n\n");
    sb.append(
        "Each layout's least write time: its bytes on the clouds it needs (inline: in the log on"
            + " n - f clouds; whole: f+1 data clouds; coded: k+f data clouds, a k-th each), the"
            + " uploads sharing the client's uplink, and a signed log on n - f clouds. \"at once\""
            + " sends the log together with the data; \"then log\" after it, as RafeStore's"
            + " writeDo then writeM do (inline is one round either way). The floor is the least"
            + " \"at once\"; \"phases\" the least \"then log\". Read floors depend on the layout"
            + " the writes chose (the results' floor layout column).\n\n");
    sb.append("| config | size |");
    StringBuilder rule = new StringBuilder("|---|---:|");
    for (String n : names) {
      sb.append(' ').append(n).append(n.equals("INLINE") ? " |" : " at once / then log |");
      rule.append("---:|");
    }
    sb.append(" floor | phases |\n").append(rule).append("---:|---:|\n");
    for (int config : options.configs) {
      WanProfile.Arrangement a = profile.arrangement(config);
      for (long size : options.sizes) {
        List<Floors.WriteFloor> ws = Floors.writeLayouts(profile, a, PaperBench.F, size);
        sb.append("| ").append(config).append(" | ").append(sizeLabel(size)).append(" |");
        for (String n : names) {
          Floors.WriteFloor w =
              ws.stream().filter(x -> x.layout().equals(n)).findFirst().orElse(null);
          if (w == null) {
            sb.append(" n/a |");
          } else if (n.equals("INLINE")) {
            sb.append(String.format(Locale.ROOT, " %.0f |", w.ms()));
          } else {
            sb.append(String.format(Locale.ROOT, " %.0f / %.0f |", w.ms(), w.phasedMs()));
          }
        }
        sb.append(
            String.format(
                Locale.ROOT,
                " %.0f | %.0f |%n",
                Floors.writeMs(profile, a, PaperBench.F, size),
                Floors.phasedWriteMs(profile, a, PaperBench.F, size)));
      }
    }
    return sb.toString();
  }

  /**
   * The layout the chooser picked at each size in each configuration (the mode that chooses it,
   * most frequent choice per cell) beside the fixed layout measured fastest there, the size
   * thresholds between layouts it found, and a paragraph answering the paper's closing questions
   * from these measurements. Empty when no mode chose a layout.
   */
  static String layoutSection(List<Result> results) {
    List<Result> chosen = chosenCells(results);
    if (chosen.isEmpty()) {
      return "";
    }
    StringBuilder sb = new StringBuilder();
    sb.append("\n## Layout chosen per value (issue 16)\n\n");
    sb.append("Plot: `")
        .append(LAYOUT_SVG)
        .append(
            "` (filled dots: the layout chosen, most often per cell; open squares: the fixed"
                + " layout measured fastest at that size).\n\n");
    sb.append(
        "| config | size | chosen (writes) | median ms | fastest fixed layout | its median ms"
            + " | chosen / fastest fixed |\n|---|---:|---|---:|---|---:|---:|\n");
    for (Result r : chosen) {
      Optional<Result> fixed = fastestFixed(results, r.config(), r.sizeBytes());
      sb.append(
          String.format(
              Locale.ROOT,
              "| %d | %s | %s | %.1f | %s | %s | %s |%n",
              r.config(),
              sizeLabel(r.sizeBytes()),
              r.chosenLayout(),
              r.medianMs(),
              fixed.map(f -> f.mode() + " (" + fixedKind(f) + ")").orElse("not run"),
              fixed.map(f -> String.format(Locale.ROOT, "%.1f", f.medianMs())).orElse(""),
              fixed
                  .map(f -> String.format(Locale.ROOT, "%.2f", r.medianMs() / f.medianMs()))
                  .orElse("")));
    }
    sb.append('\n');
    for (int config : configs(chosen)) {
      sb.append("- ").append(threshold(chosen, config)).append('\n');
    }
    sb.append('\n').append(paperQuestions(results)).append('\n');
    return sb.toString();
  }

  /** The write cells of the modes that choose a layout, by configuration and size. */
  static List<Result> chosenCells(List<Result> results) {
    List<Result> chosen = new ArrayList<>();
    for (Result r : results) {
      if (r.op().equals("write") && !r.chosenLayout().isEmpty()) {
        chosen.add(r);
      }
    }
    chosen.sort(
        java.util.Comparator.comparingInt(Result::config).thenComparingLong(Result::sizeBytes));
    return chosen;
  }

  private static List<Integer> configs(List<Result> rs) {
    return List.copyOf(new TreeSet<>(rs.stream().map(Result::config).toList()));
  }

  /** The fixed-layout write cell with the lowest median at a configuration and size, if any ran. */
  static Optional<Result> fastestFixed(List<Result> results, int config, long size) {
    return results.stream()
        .filter(r -> r.config() == config && r.sizeBytes() == size && r.op().equals("write"))
        .filter(r -> r.mode().fixedLayout() && r.ops() > 0)
        .min(java.util.Comparator.comparingDouble(Result::medianMs));
  }

  /** The layout kind of a fixed-layout cell ("INLINE", "WHOLE", "CODED k=2"). */
  static String fixedKind(Result r) {
    return r.mode().fixedKind(r.sizeBytes()).orElse(r.mode().name());
  }

  /** A run of sizes with the same layout: "INLINE 1KB-64KB". */
  private record Run(String kind, long from, long to) {
    String sizes() {
      return from == to ? sizeLabel(from) : sizeLabel(from) + "-" + sizeLabel(to);
    }
  }

  /** The chosen kinds of one configuration in size order, consecutive equal kinds merged. */
  private static List<Run> runs(List<Result> chosen, int config) {
    List<Run> runs = new ArrayList<>();
    for (Result r : chosen) {
      if (r.config() != config) {
        continue;
      }
      Run last = runs.isEmpty() ? null : runs.get(runs.size() - 1);
      if (last != null && last.kind().equals(r.chosenKind())) {
        runs.set(runs.size() - 1, new Run(last.kind(), last.from(), r.sizeBytes()));
      } else {
        runs.add(new Run(r.chosenKind(), r.sizeBytes(), r.sizeBytes()));
      }
    }
    return runs;
  }

  /**
   * "config N: INLINE 1KB-64KB, WHOLE 256KB, CODED k=2 1MB-16MB; thresholds between 64KB and 256KB
   * (INLINE to WHOLE), between 256KB and 1MB (WHOLE to CODED k=2)".
   */
  static String threshold(List<Result> chosen, int config) {
    List<Run> runs = runs(chosen, config);
    StringBuilder sb = new StringBuilder("config " + config + ": ");
    for (int i = 0; i < runs.size(); i++) {
      sb.append(i == 0 ? "" : ", ").append(runs.get(i).kind()).append(' ');
      sb.append(runs.get(i).sizes());
    }
    if (runs.size() == 1) {
      return sb.append(" (one layout at every size measured)").toString();
    }
    sb.append("; thresholds ");
    for (int i = 1; i < runs.size(); i++) {
      sb.append(i == 1 ? "" : ", ")
          .append("between ")
          .append(sizeLabel(runs.get(i - 1).to()))
          .append(" and ")
          .append(sizeLabel(runs.get(i).from()))
          .append(" (")
          .append(runs.get(i - 1).kind())
          .append(" to ")
          .append(runs.get(i).kind())
          .append(')');
    }
    return sb.toString();
  }

  /**
   * Where one configuration's chosen layouts go from whole (or inline) to fragments, if they do.
   */
  private static Optional<String> codedThreshold(List<Result> chosen, int config) {
    List<Run> runs = runs(chosen, config);
    for (int i = 1; i < runs.size(); i++) {
      if (runs.get(i).kind().startsWith("CODED") && !runs.get(i - 1).kind().startsWith("CODED")) {
        return Optional.of(
            "between " + sizeLabel(runs.get(i - 1).to()) + " and " + sizeLabel(runs.get(i).from()));
      }
    }
    return Optional.empty();
  }

  /**
   * The paper's three closing questions (send a value whole to one cloud or fragments to several;
   * is there a size threshold; should latencies and size drive the choice), answered from this
   * run's measurements: what the chooser did in each configuration, where it switched, whether the
   * switch moved between configurations, and whether its choice was as fast as the fastest fixed
   * layout measured.
   */
  static String paperQuestions(List<Result> results) {
    List<Result> chosen = chosenCells(results);
    if (chosen.isEmpty()) {
      return "";
    }
    List<Integer> configs = configs(chosen);
    StringBuilder sb = new StringBuilder("**The paper's three questions, from this run.** ");
    // 1. Whole or fragments.
    sb.append("*Whole value or fragments?* ");
    for (int i = 0; i < configs.size(); i++) {
      int c = configs.get(i);
      List<Run> runs = runs(chosen, c);
      List<String> whole = new ArrayList<>();
      List<String> coded = new ArrayList<>();
      for (Run run : runs) {
        (run.kind().startsWith("CODED") ? coded : whole)
            .add(run.kind().toLowerCase(Locale.ROOT) + " " + run.sizes());
      }
      sb.append(i == 0 ? "In configuration " : "; in configuration ").append(c).append(" the ");
      sb.append("client kept values whole");
      sb.append(whole.isEmpty() ? " at no size" : " (" + String.join(", ", whole) + ")");
      sb.append(
          coded.isEmpty()
              ? " and sent fragments at no size measured"
              : " and sent fragments (" + String.join(", ", coded) + ")");
    }
    sb.append(". ");
    // 2. A threshold.
    sb.append("*A size threshold?* ");
    List<String> thresholds = new ArrayList<>();
    for (int c : configs) {
      codedThreshold(chosen, c).ifPresent(t -> thresholds.add(t + " in configuration " + c));
    }
    sb.append(
        thresholds.isEmpty()
            ? "Not between whole values and fragments within the sizes measured"
            : "Yes, from whole values to fragments " + String.join(", ", thresholds));
    sb.append(
        String.format(
            Locale.ROOT,
            " (inline values stop at %s, the inline threshold: a setting, not a measurement). ",
            sizeLabel(Protocol.INLINE_THRESHOLD)));
    // 3. Latencies and size.
    sb.append("*Should latencies and size drive it?* ");
    boolean sizeMoves = configs.stream().anyMatch(c -> runs(chosen, c).size() > 1);
    sb.append(
        sizeMoves
            ? "Size does: the layout changed with the size within a configuration. "
            : "Size did not change the layout in this run. ");
    java.util.Set<String> distinct = new java.util.HashSet<>();
    for (int c : configs) {
      distinct.add(codedThreshold(chosen, c).orElse("none"));
    }
    if (configs.size() < 2) {
      sb.append("One configuration ran, so this run cannot tell whether latencies move it. ");
    } else if (distinct.size() > 1) {
      sb.append(
          "Latencies do: the configurations, which differ only in which clouds (with their round"
              + " trips and bandwidths) hold data, switched at different sizes. ");
    } else {
      sb.append(
          "The configurations switched between the same measured sizes, so at this size"
              + " resolution the run cannot tell latencies' part from size's. ");
    }
    // Was the choice right?
    int matched = 0;
    int compared = 0;
    double worst = 0;
    String worstAt = "";
    for (Result r : chosen) {
      Optional<Result> fixed = fastestFixed(results, r.config(), r.sizeBytes());
      if (fixed.isEmpty() || r.ops() == 0) {
        continue;
      }
      compared++;
      if (fixedKind(fixed.get()).equals(r.chosenKind())) {
        matched++;
      }
      double ratio = r.medianMs() / fixed.get().medianMs();
      if (ratio > worst) {
        worst = ratio;
        worstAt =
            sizeLabel(r.sizeBytes())
                + " in configuration "
                + r.config()
                + ", against "
                + fixed.get().mode();
      }
    }
    if (compared > 0) {
      sb.append(
          String.format(
              Locale.ROOT,
              "Measured: the layout chosen was the fixed layout measured fastest at %d of %d sizes,"
                  + " and its writes took at most %.2f x the fastest fixed layout's (%s).",
              matched,
              compared,
              worst,
              worstAt));
    }
    return sb.toString();
  }

  /** Table 3 (PAPER mode writes contacting only f+1 data clouds) next to the paper's numbers. */
  static String table3(List<Result> results) {
    StringBuilder sb = new StringBuilder();
    sb.append("## Table 3: PAPER-mode writes that contacted only f+1 data clouds\n\n");
    sb.append("| row |");
    for (long s : PaperBench.PAPER_SIZES) {
      sb.append(' ').append(sizeLabel(s)).append(" |");
    }
    sb.append("\n|---|");
    sb.append("---:|".repeat(PaperBench.PAPER_SIZES.length)).append('\n');
    for (int config = 1; config <= 3; config++) {
      if (config <= PAPER_TABLE3.length) {
        sb.append("| paper, config ").append(config).append(" |");
        for (int v : PAPER_TABLE3[config - 1]) {
          sb.append(' ').append(v).append("/60 |");
        }
        sb.append('\n');
      }
      boolean any = false;
      StringBuilder row = new StringBuilder("| measured, config " + config + " |");
      for (long s : PaperBench.PAPER_SIZES) {
        String cell = " |";
        for (Result r : results) {
          if (r.config() == config
              && r.mode() == Protocol.PAPER
              && r.op().equals("write")
              && r.sizeBytes() == s) {
            cell = " " + r.onlyFPlusOne() + "/" + r.ops() + " |";
            any = true;
          }
        }
        row.append(cell);
      }
      if (any) {
        sb.append(row).append('\n');
      }
    }
    return sb.toString();
  }
}
