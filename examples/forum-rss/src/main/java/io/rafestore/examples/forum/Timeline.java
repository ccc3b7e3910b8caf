package io.rafestore.examples.forum;

import static io.rafestore.examples.forum.Html.escape;

import io.rafestore.PhaseTiming;
import io.rafestore.WriteReceipt;
import io.rafestore.examples.forum.RequestRecorder.Kind;
import io.rafestore.examples.forum.RequestRecorder.Outcome;
import io.rafestore.examples.forum.RequestRecorder.Request;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * One write's requests per cloud, drawn like the paper's Figure 2: a row with the write's phases as
 * the library timed them (the {@link WriteReceipt#phases() receipt's phases}), then a row per
 * cloud, a bar per request coloured by protocol phase, a line at the crucial check and one at
 * completion.
 *
 * <p><b>Phases.</b> The protocol's own timings (design.md section 7, "Observability") give when
 * readM ended, which is the crucial check, and when writeDf started, if it ran; each request is
 * then classified by the object it names:
 *
 * <ul>
 *   <li>readM: a get of a metadata log ({@code m/...});
 *   <li>writeDo: a put of a data object that started before writeDf did;
 *   <li>writeDf: a put of a data object that started at or after writeDf's start (an extra data
 *       cloud);
 *   <li>writeM: a put of a metadata log;
 *   <li>other: anything else on the key's objects (a delete, a list, a data get).
 * </ul>
 *
 * The receipt's phases are offsets from the write's start on the client's clock; the capture opens
 * just before the write starts, so they are drawn from the capture's start (microseconds early,
 * which keeps every writeDf put at or after writeDf's drawn start).
 *
 * <p>Immutable apart from the requests' ends, which a request still running at completion fills in
 * later (metadata puts may finish after the write returned); the drawing shows what is known when
 * it is made.
 */
final class Timeline {
  enum Phase {
    WRITE_DO("writeDo", "#2b7bb9"),
    READ_M("readM", "#e08a1e"),
    WRITE_DF("writeDf", "#8e44ad"),
    WRITE_M("writeM", "#2e9d4f"),
    OTHER("other", "#999999");

    final String label;
    final String colour;

    Phase(String label, String colour) {
      this.label = label;
      this.colour = colour;
    }
  }

  private static final int WIDTH = 640;
  private static final int LABEL = 48;
  private static final int ROW = 22;
  private static final int TOP = 18;
  private static final int AXIS = 18;

  private final List<String> clouds;
  private final List<Request> requests;
  private final long startNanos;
  private final long endNanos;
  private final long crucialCheckNanos;
  private final long writeDfNanos;
  private final List<PhaseTiming> spans;

  /**
   * @param clouds the row order (every cloud of the store)
   * @param capture the write's requests
   * @param receipt the write's receipt, with its phases' timings
   */
  Timeline(List<String> clouds, RequestRecorder.Capture capture, WriteReceipt receipt) {
    this.clouds = List.copyOf(clouds);
    List<Request> rs = new ArrayList<>(capture.requests());
    rs.sort(Comparator.comparingLong(r -> r.startNanos));
    this.requests = List.copyOf(rs);
    this.startNanos = capture.startNanos;
    this.endNanos = capture.endNanos() == 0 ? capture.startNanos : capture.endNanos();
    this.spans = receipt.phases();
    this.crucialCheckNanos = at(io.rafestore.Phase.READ_M, true);
    this.writeDfNanos = at(io.rafestore.Phase.WRITE_DF, false);
  }

  /** When {@code phase} started or ended, on the recorder's clock; -1 if the write had none. */
  private long at(io.rafestore.Phase phase, boolean end) {
    for (PhaseTiming t : spans) {
      if (t.phase() == phase) {
        return startNanos + (end ? t.end() : t.start()).toNanos();
      }
    }
    return -1;
  }

  private Phase phaseIgnoringCheck(Request r) {
    boolean data = r.object.startsWith("d/");
    boolean metadata = r.object.startsWith("m/");
    if (r.kind == Kind.GET && metadata) {
      return Phase.READ_M;
    }
    if (r.kind == Kind.PUT && metadata) {
      return Phase.WRITE_M;
    }
    if (r.kind == Kind.PUT && data) {
      return Phase.WRITE_DO;
    }
    return Phase.OTHER;
  }

  Phase phase(Request r) {
    Phase p = phaseIgnoringCheck(r);
    if (p == Phase.WRITE_DO && writeDfNanos >= 0 && r.startNanos >= writeDfNanos) {
      return Phase.WRITE_DF;
    }
    return p;
  }

  /** The phases that occurred (for tests and the legend). */
  List<Phase> phases() {
    List<Phase> out = new ArrayList<>();
    for (Request r : requests) {
      Phase p = phase(r);
      if (!out.contains(p)) {
        out.add(p);
      }
    }
    return out;
  }

  private double ms(long nanos) {
    return (nanos - startNanos) / 1e6;
  }

  /** The drawing: inline SVG (no script), then a legend; every request has a tooltip. */
  String svg() {
    long last = endNanos;
    for (Request r : requests) {
      last = Math.max(last, r.outcome() == Outcome.RUNNING ? endNanos : r.endNanos());
    }
    double totalMs = Math.max(ms(last), 0.001);
    double scale = (WIDTH - LABEL - 10) / totalMs;
    int height = TOP + (clouds.size() + 1) * ROW + AXIS;
    StringBuilder sb = new StringBuilder();
    sb.append("<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"")
        .append(WIDTH)
        .append("\" height=\"")
        .append(height)
        .append("\" viewBox=\"0 0 ")
        .append(WIDTH)
        .append(' ')
        .append(height)
        .append("\" role=\"img\" aria-label=\"the write's requests per cloud over time\">\n");
    phaseRow(sb, scale);
    for (int i = 0; i < clouds.size(); i++) {
      String cloud = clouds.get(i);
      int y = TOP + (i + 1) * ROW;
      sb.append("<g class=\"row\" data-cloud=\"").append(escape(cloud)).append("\">");
      sb.append("<text x=\"0\" y=\"")
          .append(y + 15)
          .append("\" font-size=\"12\">")
          .append(escape(cloud))
          .append("</text>");
      sb.append("<line x1=\"")
          .append(LABEL)
          .append("\" x2=\"")
          .append(WIDTH)
          .append("\" y1=\"")
          .append(y + ROW - 1)
          .append("\" y2=\"")
          .append(y + ROW - 1)
          .append("\" stroke=\"#e3e3e3\"/>");
      for (Request r : requests) {
        if (!r.cloud.equals(cloud)) {
          continue;
        }
        Phase p = phase(r);
        boolean running = r.outcome() == Outcome.RUNNING;
        double from = ms(r.startNanos);
        double to = running ? ms(last) : ms(r.endNanos());
        double x = LABEL + from * scale;
        double w = Math.max(2, (to - from) * scale);
        String outcome = r.outcome().name().toLowerCase(Locale.ROOT);
        sb.append("<rect class=\"bar ")
            .append(p.label)
            .append(' ')
            .append(outcome)
            .append("\" x=\"")
            .append(num(x))
            .append("\" y=\"")
            .append(y + 3)
            .append("\" width=\"")
            .append(num(w))
            .append("\" height=\"")
            .append(ROW - 8)
            .append("\" fill=\"")
            .append(p.colour)
            .append('"');
        switch (r.outcome()) {
          case FAILED -> sb.append(" fill-opacity=\"0.35\" stroke=\"#c00\" stroke-width=\"2\"");
          case CANCELLED, RUNNING ->
              sb.append(" fill-opacity=\"0.35\" stroke=\"#555\" stroke-dasharray=\"3 2\"");
          default -> {}
        }
        sb.append("><title>")
            .append(escape(cloud))
            .append(": ")
            .append(p.label)
            .append(' ')
            .append(r.kind.name().toLowerCase(Locale.ROOT))
            .append(' ')
            .append(escape(r.object))
            .append(String.format(Locale.ROOT, ", %.1f to %.1f ms, ", from, to))
            .append(running ? "still running" : outcome)
            .append("</title></rect>");
      }
      sb.append("</g>\n");
    }
    int bottom = TOP + (clouds.size() + 1) * ROW;
    if (crucialCheckNanos >= 0) {
      marker(
          sb, "crucial-check", LABEL + ms(crucialCheckNanos) * scale, bottom, "#c0392b", "check");
    }
    marker(sb, "completion", LABEL + ms(endNanos) * scale, bottom, "#000", "done");
    sb.append("<text x=\"")
        .append(LABEL)
        .append("\" y=\"")
        .append(bottom + 14)
        .append("\" font-size=\"11\">0 ms</text><text x=\"")
        .append(WIDTH)
        .append("\" y=\"")
        .append(bottom + 14)
        .append("\" font-size=\"11\" text-anchor=\"end\">")
        .append(String.format(Locale.ROOT, "%.1f ms", totalMs))
        .append("</text>\n</svg>\n");
    sb.append("<div class=\"legend\">");
    for (Phase p : Phase.values()) {
      sb.append("<span><i style=\"background:")
          .append(p.colour)
          .append("\"></i>")
          .append(p.label)
          .append("</span> ");
    }
    sb.append("<span>| red line: the crucial check (readM done")
        .append(
            crucialCheckNanos >= 0
                ? String.format(Locale.ROOT, ", %.1f ms", ms(crucialCheckNanos))
                : "")
        .append("); black: the write returned")
        .append(String.format(Locale.ROOT, " (%.1f ms)", ms(endNanos)))
        .append("; dashed: cancelled or still running; red outline: failed; top row: the")
        .append(" phases as the library timed them</span></div>\n");
    return sb.toString();
  }

  /**
   * The top row: the write's phases from its receipt, one bar each, in two lanes so that phases
   * that overlap stay visible: the data phases (writeDo, writeDf, which run together when writeDf
   * adds a cloud) above, the metadata phases (readM, then writeM) below.
   */
  private void phaseRow(StringBuilder sb, double scale) {
    int lane = (ROW - 8) / 2;
    sb.append("<g class=\"phases\"><text x=\"0\" y=\"")
        .append(TOP + 15)
        .append("\" font-size=\"12\" font-style=\"italic\">write</text>");
    for (PhaseTiming t : spans) {
      Phase p = drawn(t.phase());
      double from = t.start().toNanos() / 1e6;
      double to = t.end().toNanos() / 1e6;
      boolean metadata = p == Phase.READ_M || p == Phase.WRITE_M;
      sb.append("<rect class=\"phase ")
          .append(p.label)
          .append("\" x=\"")
          .append(num(LABEL + from * scale))
          .append("\" y=\"")
          .append(TOP + 3 + (metadata ? lane + 1 : 0))
          .append("\" width=\"")
          .append(num(Math.max(2, (to - from) * scale)))
          .append("\" height=\"")
          .append(lane)
          .append("\" fill=\"")
          .append(p.colour)
          .append("\"><title>")
          .append(p.label)
          .append(String.format(Locale.ROOT, ", %.1f to %.1f ms (the write's receipt)", from, to))
          .append("</title></rect>");
    }
    sb.append("</g>\n");
  }

  private static Phase drawn(io.rafestore.Phase phase) {
    return switch (phase) {
      case WRITE_DO -> Phase.WRITE_DO;
      case READ_M -> Phase.READ_M;
      case WRITE_DF -> Phase.WRITE_DF;
      case WRITE_M -> Phase.WRITE_M;
      default -> Phase.OTHER;
    };
  }

  private static void marker(
      StringBuilder sb, String cls, double x, int bottom, String colour, String label) {
    sb.append("<line class=\"")
        .append(cls)
        .append("\" x1=\"")
        .append(num(x))
        .append("\" x2=\"")
        .append(num(x))
        .append("\" y1=\"12\" y2=\"")
        .append(bottom)
        .append("\" stroke=\"")
        .append(colour)
        .append("\" stroke-width=\"1.5\"")
        .append(cls.equals("crucial-check") ? " stroke-dasharray=\"4 2\"" : "")
        .append("/><text x=\"")
        .append(num(x))
        .append("\" y=\"10\" font-size=\"10\" text-anchor=\"middle\" fill=\"")
        .append(colour)
        .append("\">")
        .append(label)
        .append("</text>\n");
  }

  private static String num(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }
}
