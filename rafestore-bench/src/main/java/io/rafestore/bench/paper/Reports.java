package io.rafestore.bench.paper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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
            Svg.latencyPlot(config, op, options.modes, results),
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
            + "only_f_plus_1,cancelled,cost_per_10k_usd,speculative_started,speculative_kept,"
            + "speculative_wasted,chosen_layout");
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
              "%d,%s,%d,%s,%d,%d,%.3f,%.3f,%.3f,%.3f,%.4f,%d,%d,%.6f,%d,%d,%d,%s",
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
              r.chosenLayout().replace(',', ';')));
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
    sb.append(
        String.format(
            Locale.ROOT,
            "Profile `%s`, time scale %s (latencies below are divided by it: paper milliseconds),"
                + " %d writes then %d reads per cell, f = %d. In-memory clouds behind the"
                + " emulated WAN, real time. Measured on whatever machine ran it; on a shared"
                + " machine the numbers are noisy.%n%n",
            profile.name(),
            scale,
            options.ops,
            options.ops,
            PaperBench.F));
    if (!options.runInfo.isEmpty()) {
      sb.append(options.runInfo)
          .append(
              options.parallelConfigs
                  ? " The configurations ran at the same time (--parallel-configs)."
                  : "")
          .append("\n\n");
    }
    sb.append(
        "| config | mode | size | op | failed | median ms | p90 ms | p99 ms | floor ms | median/floor"
            + " | f+1 only | cancelled | anticipated kept/wasted | requests per cloud"
            + " | cost / 10k ops (USD) |\n");
    sb.append("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|\n");
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
              "| %d | %s | %s | %s | %d | %.1f | %.1f | %.1f | %.1f | %.2f | %s | %d | %s | %s"
                  + " | %.4f |%n",
              r.config(),
              r.mode(),
              sizeLabel(r.sizeBytes()),
              r.op(),
              r.failures(),
              r.medianMs(),
              r.p90Ms(),
              r.p99Ms(),
              r.floorMs(),
              r.medianOverFloor(),
              r.onlyFPlusOne() < 0 ? "" : r.onlyFPlusOne() + "/" + r.ops(),
              r.cancelled(),
              r.op().equals("read") ? r.speculative().kept() + "/" + r.speculative().wasted() : "",
              perCloud,
              r.costPer10kUsd()));
    }
    sb.append('\n').append(table3(results));
    sb.append(layoutSection(results));
    sb.append("\n## Targets (issues 7 and 21), ratios within this run\n\n```\n");
    for (String line : Targets.evaluate(results)) {
      sb.append(line).append('\n');
    }
    sb.append("```\n");
    sb.append("\nCosts use ").append(prices.source()).append(".\n");
    return sb.toString();
  }

  /**
   * The layout the chooser picked at each size in each configuration (the mode that chooses it,
   * most frequent choice per cell) and the size threshold it found between whole copies (or inline)
   * and fragments: the answer, for this profile, to the paper's closing questions. Empty when no
   * mode chose a layout.
   */
  static String layoutSection(List<Result> results) {
    List<Result> chosen = new ArrayList<>();
    for (Result r : results) {
      if (r.op().equals("write") && !r.chosenLayout().isEmpty()) {
        chosen.add(r);
      }
    }
    if (chosen.isEmpty()) {
      return "";
    }
    chosen.sort(
        java.util.Comparator.comparingInt(Result::config).thenComparingLong(Result::sizeBytes));
    StringBuilder sb = new StringBuilder();
    sb.append("\n## Layout chosen per value (issue 16)\n\n");
    sb.append("Plot: `").append(LAYOUT_SVG).append("`.\n\n");
    sb.append("| config | size | chosen (writes) | mode |\n|---|---:|---|---|\n");
    for (Result r : chosen) {
      sb.append(
          String.format(
              Locale.ROOT,
              "| %d | %s | %s | %s |%n",
              r.config(),
              sizeLabel(r.sizeBytes()),
              r.chosenLayout(),
              r.mode()));
    }
    sb.append('\n');
    for (int config : new TreeSet<>(chosen.stream().map(Result::config).toList())) {
      sb.append("- ").append(threshold(chosen, config)).append('\n');
    }
    return sb.toString();
  }

  /** "config N: whole copies (or inline) up to A, coded from B", or that one kind held. */
  static String threshold(List<Result> chosen, int config) {
    long lastWhole = -1;
    long firstCoded = -1;
    long largest = 0;
    for (Result r : chosen) {
      if (r.config() != config) {
        continue;
      }
      largest = Math.max(largest, r.sizeBytes());
      if (r.chosenKind().startsWith("CODED")) {
        if (firstCoded < 0) {
          firstCoded = r.sizeBytes();
        }
      } else if (firstCoded < 0) {
        lastWhole = r.sizeBytes();
      }
    }
    if (firstCoded < 0) {
      return "config "
          + config
          + ": whole copies (or inline) at every size measured, up to "
          + sizeLabel(largest);
    }
    if (lastWhole < 0) {
      return "config " + config + ": coded at every size measured, from " + sizeLabel(firstCoded);
    }
    return "config "
        + config
        + ": whole copies (or inline) up to "
        + sizeLabel(lastWhole)
        + ", coded from "
        + sizeLabel(firstCoded);
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
