package io.rafestore.bench.paper;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A hand-written SVG line plot of median latency against value size on log-log axes, one line per
 * protocol mode, in the manner of the paper's Figure 3. Stateless.
 */
final class Svg {
  private static final int WIDTH = 640;
  private static final int HEIGHT = 420;
  private static final int LEFT = 70;
  private static final int RIGHT = 150;
  private static final int TOP = 40;
  private static final int BOTTOM = 50;
  private static final String[] COLOURS = {
    "#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666"
  };
  private static final String[] DASHES = {"", "6,3", "2,3", "8,3,2,3", "", "6,3", "2,3", "8,3,2,3"};

  private Svg() {}

  static String latencyPlot(int config, String op, List<Protocol> modes, List<Result> all) {
    List<Result> rs = new ArrayList<>();
    TreeMap<Long, Double> floors = new TreeMap<>();
    for (Result r : all) {
      if (r.config() == config && r.op().equals(op) && r.medianMs() > 0) {
        rs.add(r);
        // Writes share one floor per size; reads have their layout's, so the lowest is drawn.
        floors.merge(r.sizeBytes(), r.floorMs(), Math::min);
      }
    }
    double minX = Double.POSITIVE_INFINITY;
    double maxX = Double.NEGATIVE_INFINITY;
    double minY = Double.POSITIVE_INFINITY;
    double maxY = Double.NEGATIVE_INFINITY;
    for (Result r : rs) {
      minX = Math.min(minX, Math.log10(r.sizeBytes()));
      maxX = Math.max(maxX, Math.log10(r.sizeBytes()));
      minY = Math.min(minY, Math.log10(Math.min(r.medianMs(), r.floorMs())));
      maxY = Math.max(maxY, Math.log10(r.medianMs()));
    }
    if (rs.isEmpty()) {
      minX = 3;
      maxX = 4;
      minY = 0;
      maxY = 1;
    }
    // Whole decades on the latency axis, whole powers of 4 on the size axis.
    minY = Math.floor(minY);
    maxY = Math.max(minY + 1, Math.ceil(maxY));
    if (maxX - minX < 1e-9) {
      minX -= 0.5;
      maxX += 0.5;
    }
    StringBuilder sb = new StringBuilder();
    sb.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    sb.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n",
            WIDTH,
            HEIGHT,
            WIDTH,
            HEIGHT));
    sb.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    sb.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"22\" font-size=\"14\">Configuration %d: %s latency (median,"
                + " paper ms) vs size</text>%n",
            LEFT,
            config,
            op));
    int plotW = WIDTH - LEFT - RIGHT;
    int plotH = HEIGHT - TOP - BOTTOM;
    sb.append(
        String.format(
            Locale.ROOT,
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"black\"/>%n",
            LEFT,
            TOP,
            plotW,
            plotH));
    for (int d = (int) minY; d <= (int) maxY; d++) {
      double y = y(d, minY, maxY);
      sb.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                  + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
              LEFT,
              y,
              LEFT + plotW,
              y,
              LEFT - 6,
              y + 4,
              decade(d)));
    }
    for (long s : PaperBench.PAPER_SIZES) {
      double lx = Math.log10(s);
      if (lx < minX - 1e-9 || lx > maxX + 1e-9) {
        continue;
      }
      double x = x(lx, minX, maxX);
      sb.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>"
                  + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
              x,
              TOP,
              x,
              TOP + plotH,
              x,
              TOP + plotH + 16,
              Reports.sizeLabel(s)));
    }
    sb.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">value size (log)</text>%n",
            LEFT + plotW / 2,
            HEIGHT - 10));
    sb.append(
        String.format(
            Locale.ROOT,
            "<text x=\"16\" y=\"%d\" transform=\"rotate(-90 16 %d)\" text-anchor=\"middle\">"
                + "latency, ms (log)</text>%n",
            TOP + plotH / 2,
            TOP + plotH / 2));
    // The physical floor (see Floors): for writes the same for every mode, for reads the lowest
    // of the layouts the modes read; a thin grey line.
    StringBuilder floorPoints = new StringBuilder();
    for (Map.Entry<Long, Double> e : floors.entrySet()) {
      floorPoints.append(
          String.format(
              Locale.ROOT,
              "%.1f,%.1f ",
              x(Math.log10(e.getKey()), minX, maxX),
              y(Math.log10(e.getValue()), minY, maxY)));
    }
    int legendX = LEFT + plotW + 12;
    if (floorPoints.length() > 0) {
      sb.append(
          String.format(
              Locale.ROOT,
              "<polyline class=\"floor\" fill=\"none\" stroke=\"#999\" stroke-width=\"1\""
                  + " points=\"%s\"/>%n",
              floorPoints.toString().trim()));
      int ly = TOP + 14 + 20 * modes.size();
      sb.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>"
                  + "<text x=\"%d\" y=\"%d\">%s</text>%n",
              legendX,
              ly,
              legendX + 24,
              ly,
              legendX + 30,
              ly + 4,
              op.equals("write") ? "physical floor" : "lowest floor"));
    }
    for (int m = 0; m < modes.size(); m++) {
      Protocol mode = modes.get(m);
      String colour = COLOURS[m % COLOURS.length];
      String dash = DASHES[m % DASHES.length];
      StringBuilder points = new StringBuilder();
      StringBuilder marks = new StringBuilder();
      for (Result r : rs) {
        if (r.mode() != mode) {
          continue;
        }
        double x = x(Math.log10(r.sizeBytes()), minX, maxX);
        double y = y(Math.log10(r.medianMs()), minY, maxY);
        points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
        marks.append(
            String.format(
                Locale.ROOT,
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>%n",
                x,
                y,
                colour));
      }
      if (points.length() > 0) {
        sb.append(
            String.format(
                Locale.ROOT,
                "<polyline class=\"mode\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"%s\"/>%n",
                colour,
                dash.isEmpty() ? "" : " stroke-dasharray=\"" + dash + "\"",
                points.toString().trim()));
        sb.append(marks);
      }
      int ly = TOP + 14 + 20 * m;
      int lx = legendX;
      sb.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"%s/>"
                  + "<text x=\"%d\" y=\"%d\">%s</text>%n",
              lx,
              ly,
              lx + 24,
              ly,
              colour,
              dash.isEmpty() ? "" : " stroke-dasharray=\"" + dash + "\"",
              lx + 30,
              ly + 4,
              mode));
    }
    sb.append("</svg>\n");
    return sb.toString();
  }

  /**
   * The layout chosen at each size (the most frequent choice of the mode that chooses it), one step
   * line per configuration: sizes on a log axis, the layouts (inline, whole, coded by k) as rows;
   * an open square at the fixed layout measured fastest at each size, and a dashed vertical line
   * where a configuration's chosen layout changes (its threshold, between two measured sizes).
   */
  static String layoutPlot(List<Result> all) {
    List<Result> rs = new ArrayList<>();
    java.util.TreeSet<String> kinds =
        new java.util.TreeSet<>(
            java.util.Comparator.comparingInt(Svg::kindRank).thenComparing(k -> k));
    for (Result r : all) {
      if (r.op().equals("write") && !r.chosenLayout().isEmpty()) {
        rs.add(r);
        kinds.add(r.chosenKind());
        Reports.fastestFixed(all, r.config(), r.sizeBytes())
            .ifPresent(f -> kinds.add(Reports.fixedKind(f)));
      }
    }
    List<String> rows = new ArrayList<>(kinds);
    double minX = 3;
    double maxX = 4;
    if (!rs.isEmpty()) {
      minX = rs.stream().mapToDouble(r -> Math.log10(r.sizeBytes())).min().orElse(3);
      maxX = rs.stream().mapToDouble(r -> Math.log10(r.sizeBytes())).max().orElse(4);
    }
    if (maxX - minX < 1e-9) {
      minX -= 0.5;
      maxX += 0.5;
    }
    int plotW = WIDTH - LEFT - RIGHT;
    int plotH = HEIGHT - TOP - BOTTOM;
    StringBuilder sb = new StringBuilder();
    sb.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    sb.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n",
            WIDTH,
            HEIGHT,
            WIDTH,
            HEIGHT));
    sb.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    sb.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"22\" font-size=\"14\">Layout chosen per value size"
                + " (dots; squares: fixed layout measured fastest)</text>%n",
            LEFT));
    sb.append(
        String.format(
            Locale.ROOT,
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"black\"/>%n",
            LEFT,
            TOP,
            plotW,
            plotH));
    for (int i = 0; i < rows.size(); i++) {
      double y = rowY(i, rows.size());
      sb.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                  + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
              LEFT,
              y,
              LEFT + plotW,
              y,
              LEFT - 6,
              y + 4,
              rows.get(i)));
    }
    for (long s : PaperBench.PAPER_SIZES) {
      double lx = Math.log10(s);
      if (lx < minX - 1e-9 || lx > maxX + 1e-9) {
        continue;
      }
      double x = x(lx, minX, maxX);
      sb.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>"
                  + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
              x,
              TOP,
              x,
              TOP + plotH,
              x,
              TOP + plotH + 16,
              Reports.sizeLabel(s)));
    }
    sb.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">value size (log)</text>%n",
            LEFT + plotW / 2,
            HEIGHT - 10));
    List<Integer> configs = rs.stream().map(Result::config).distinct().sorted().toList();
    for (int m = 0; m < configs.size(); m++) {
      int config = configs.get(m);
      String colour = COLOURS[m % COLOURS.length];
      String dash = DASHES[m % DASHES.length];
      StringBuilder points = new StringBuilder();
      StringBuilder marks = new StringBuilder();
      double offset = (m - (configs.size() - 1) / 2.0) * 4;
      Double lastY = null;
      double lastX = 0;
      for (Result r :
          rs.stream()
              .filter(r -> r.config() == config)
              .sorted(java.util.Comparator.comparingLong(Result::sizeBytes))
              .toList()) {
        double x = x(Math.log10(r.sizeBytes()), minX, maxX);
        double y = rowY(rows.indexOf(r.chosenKind()), rows.size()) + offset;
        if (lastY != null && Math.abs(lastY - y) > 1e-9) {
          // A step halfway (on the log axis) between the two measured sizes, where the threshold
          // line is drawn: the threshold lies somewhere between them.
          double mid = (lastX + x) / 2;
          points.append(String.format(Locale.ROOT, "%.1f,%.1f %.1f,%.1f ", mid, lastY, mid, y));
        }
        points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
        marks.append(
            String.format(
                Locale.ROOT,
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>%n",
                x,
                y,
                colour));
        Optional<Result> fixed = Reports.fastestFixed(all, config, r.sizeBytes());
        if (fixed.isPresent()) {
          double fy = rowY(rows.indexOf(Reports.fixedKind(fixed.get())), rows.size()) + offset;
          marks.append(
              String.format(
                  Locale.ROOT,
                  "<rect class=\"fastest-fixed\" x=\"%.1f\" y=\"%.1f\" width=\"9\""
                      + " height=\"9\" fill=\"none\" stroke=\"%s\"/>%n",
                  x - 4.5,
                  fy - 4.5,
                  colour));
        }
        if (lastY != null && Math.abs(lastY - y) > 1e-9) {
          // The threshold lies between the previous measured size and this one.
          double tx = (lastX + x) / 2;
          marks.append(
              String.format(
                  Locale.ROOT,
                  "<line class=\"threshold\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\""
                      + " stroke=\"%s\" stroke-dasharray=\"3,3\"/>"
                      + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"%s\">c%d</text>%n",
                  tx,
                  TOP,
                  tx,
                  TOP + plotH,
                  colour,
                  tx,
                  TOP + 12 + 12 * m,
                  colour,
                  config));
        }
        lastY = y;
        lastX = x;
      }
      sb.append(
          String.format(
              Locale.ROOT,
              "<polyline class=\"config-%d\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s"
                  + " points=\"%s\"/>%n",
              config,
              colour,
              dash.isEmpty() ? "" : " stroke-dasharray=\"" + dash + "\"",
              points.toString().trim()));
      sb.append(marks);
      int ly = TOP + 14 + 20 * m;
      int lx = LEFT + plotW + 12;
      sb.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"%s/>"
                  + "<text x=\"%d\" y=\"%d\">configuration %d</text>%n",
              lx,
              ly,
              lx + 24,
              ly,
              colour,
              dash.isEmpty() ? "" : " stroke-dasharray=\"" + dash + "\"",
              lx + 30,
              ly + 4,
              config));
    }
    sb.append("</svg>\n");
    return sb.toString();
  }

  /** Rows bottom to top: inline, whole, then coded by k. */
  private static int kindRank(String kind) {
    return kind.startsWith("INLINE") ? 0 : kind.startsWith("WHOLE") ? 1 : 2;
  }

  private static double rowY(int row, int rows) {
    int plotH = HEIGHT - TOP - BOTTOM;
    return TOP + plotH - (row + 1) * (double) plotH / (rows + 1);
  }

  private static double x(double logSize, double minX, double maxX) {
    return LEFT + (logSize - minX) / (maxX - minX) * (WIDTH - LEFT - RIGHT);
  }

  private static double y(double logMs, double minY, double maxY) {
    return TOP + (maxY - logMs) / (maxY - minY) * (HEIGHT - TOP - BOTTOM);
  }

  private static String decade(int d) {
    return d >= 0 ? String.valueOf((long) Math.pow(10, d)) : String.valueOf(Math.pow(10, d));
  }
}
