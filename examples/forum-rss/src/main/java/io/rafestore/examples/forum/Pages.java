package io.rafestore.examples.forum;

import static io.rafestore.examples.forum.Html.escape;

import io.rafestore.Version;
import io.rafestore.WriteReceipt;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Server-side HTML. Every piece of user or stored text goes through {@link Html#escape} (element
 * text and quoted attributes) or {@link Html#pathSegment} (URLs); nothing else is interpolated
 * except numbers and the app's own constants.
 */
final class Pages {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'", Locale.ROOT)
          .withZone(ZoneOffset.UTC);

  private static final String STYLE =
      "body{font-family:sans-serif;max-width:52rem;margin:1rem auto;padding:0 1rem;color:#222}"
          + "table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.3rem;"
          + "border-bottom:1px solid #ddd}article{border:1px solid #ccc;border-radius:4px;"
          + "margin:1rem 0;padding:.5rem 1rem}.meta{color:#555;font-size:.9rem}"
          + ".body{white-space:pre-wrap;margin:.5rem 0}.status{background:#f4f6f8;"
          + "font-size:.8rem;padding:.4rem;border-radius:3px}.status dt{font-weight:bold;"
          + "float:left;clear:left;width:9rem}.status dd{margin-left:9.5rem}"
          + "label{display:block;margin-top:.5rem}input[type=text],textarea{width:100%}"
          + "footer{margin-top:2rem;color:#666;font-size:.8rem}.error{color:#a00}"
          + ".timeline{max-width:100%;height:auto;background:#fff;margin-top:.3rem}"
          + ".legend{font-size:.75rem}.legend i{display:inline-block;width:.8rem;height:.8rem;"
          + "margin-right:.2rem;vertical-align:middle}.faulty{color:#a00;font-weight:bold}"
          + "form.inline{display:inline}code{word-break:break-all}";

  private Pages() {}

  /**
   * The HTML id of a post: stable, because it is made of the version (writer id and incarnation:
   * two incarnations of one writer may share a timestamp).
   */
  static String anchor(Version v) {
    return "v-" + v.timestamp() + "-" + v.writerTag().replace('.', '-');
  }

  static String time(Instant t) {
    return TIME.format(t);
  }

  /**
   * What a visitor typed into a form that was refused, shown again (escaped) with the reason.
   *
   * @param values field name to submitted value
   * @param error why the form was refused
   */
  record Draft(Map<String, String> values, String error) {
    Draft {
      values = Map.copyOf(values);
    }

    static final Draft NONE = new Draft(Map.of(), "");

    String value(String field) {
      return values.getOrDefault(field, "");
    }
  }

  static String topicList(List<Forum.TopicSummary> topics, String storeDescription) {
    return topicList(topics, storeDescription, Draft.NONE);
  }

  static String topicList(List<Forum.TopicSummary> topics, String storeDescription, Draft draft) {
    StringBuilder sb = new StringBuilder();
    sb.append("<h1>RafeStore forum</h1>\n");
    sb.append(
        "<p>Every topic is one RafeStore key; every post is a new version of it, written with"
            + " the anticipated Byzantine quorum protocol.</p>\n");
    if (topics.isEmpty()) {
      sb.append("<p id=\"no-topics\">No topics yet.</p>\n");
    } else {
      sb.append("<table id=\"topics\"><tr><th>Topic</th><th>Posts</th><th>Last post</th></tr>\n");
      for (Forum.TopicSummary t : topics) {
        sb.append("<tr><td><a href=\"/topics/")
            .append(Html.pathSegment(t.entry().id()))
            .append("\">")
            .append(escape(t.entry().title()))
            .append("</a></td><td>")
            .append(t.posts())
            .append("</td><td>")
            .append(t.lastPost().map(Pages::time).orElse("-"))
            .append("</td></tr>\n");
      }
      sb.append("</table>\n");
    }
    sb.append(
        "<p><a href=\"/faults\" id=\"faults-link\">Faults</a>: crash, slow down or corrupt"
            + " one cloud and watch reads stay exact.</p>\n");
    sb.append("<h2>New topic</h2>\n");
    draftError(sb, draft);
    sb.append("<form method=\"post\" action=\"/topics\" id=\"new-topic\">\n");
    field(sb, "title", "Title", Fields.MAX_TITLE, draft);
    field(sb, "author", "Your name", Fields.MAX_AUTHOR, draft);
    area(sb, "First post", draft);
    sb.append("<button type=\"submit\">Create topic</button>\n</form>\n");
    return page("RafeStore forum", sb.toString(), storeDescription);
  }

  static String topic(
      Forum.TopicView view, List<String> clouds, int maxShown, String storeDescription) {
    return topic(view, clouds, maxShown, storeDescription, Draft.NONE);
  }

  static String topic(
      Forum.TopicView view,
      List<String> clouds,
      int maxShown,
      String storeDescription,
      Draft draft) {
    String id = view.entry().id();
    StringBuilder sb = new StringBuilder();
    sb.append("<p><a href=\"/\">All topics</a> | <a href=\"/topics/")
        .append(Html.pathSegment(id))
        .append("/rss\" id=\"rss\">RSS feed</a></p>\n");
    sb.append("<h1>").append(escape(view.entry().title())).append("</h1>\n");
    if (view.total() == 0) {
      sb.append("<p id=\"no-posts\">No posts yet.</p>\n");
    } else {
      sb.append("<p class=\"meta\">")
          .append(view.total())
          .append(view.total() == 1 ? " post" : " posts")
          .append(", oldest first (in version order, the order every reader sees)");
      if (view.total() > view.posts().size()) {
        sb.append("; showing the newest ").append(maxShown);
      }
      sb.append(".</p>\n");
    }
    String allClouds = String.join(", ", clouds);
    for (Forum.PostView p : view.posts()) {
      sb.append("<article class=\"post\" id=\"").append(escape(anchor(p.info().version())));
      sb.append("\">\n<div class=\"meta\">#").append(p.number()).append(" &middot; ");
      sb.append(p.post().map(x -> "<b>" + escape(x.author()) + "</b>").orElse("?"));
      sb.append(" &middot; ").append(time(p.info().createdAt()));
      sb.append(" &middot; version ").append(escape(p.info().version().toString()));
      sb.append("</div>\n");
      if (p.post().isPresent()) {
        sb.append("<div class=\"body\">").append(escape(p.post().get().body())).append("</div>\n");
      } else {
        sb.append("<div class=\"body error\">").append(escape(p.problem())).append("</div>\n");
      }
      sb.append("<dl class=\"status\">\n");
      if (p.receipt().isPresent()) {
        WriteReceipt r = p.receipt().get();
        sb.append("<dt>write latency</dt><dd class=\"latency\">")
            .append(String.format(Locale.ROOT, "%.1f ms", r.latency().toNanos() / 1e6))
            .append("</dd>\n<dt>data sent to</dt><dd>")
            .append(escape(String.join(", ", r.dataCloudsContacted())))
            .append(r.writeDfUsed() ? " (writeDf added a cloud)" : " (f+1, no writeDf)")
            .append("</dd>\n");
      } else {
        sb.append("<dt>write latency</dt><dd class=\"latency\">not measured here</dd>\n");
      }
      sb.append("<dt>read from</dt><dd class=\"source\">")
          .append(
              p.fromCache()
                  ? "the cache (no cloud asked; checked against the signed SHA-256)"
                  : p.servedBy().isEmpty() ? "not read" : escape(p.servedBy()))
          .append("</dd>\n");
      sb.append("<dt>data held by</dt><dd class=\"data-clouds\">")
          .append(escape(String.join(", ", p.info().dataClouds())))
          .append("</dd>\n<dt>metadata</dt><dd class=\"metadata-clouds\">");
      if (p.receipt().isPresent()) {
        sb.append("signed log acknowledged by ")
            .append(escape(String.join(", ", p.receipt().get().metadataAcks())))
            .append(" before the write returned; sent to all of ")
            .append(escape(allClouds));
      } else {
        sb.append("signed log written to all of ")
            .append(escape(allClouds))
            .append(" (acknowledgements not measured here)");
      }
      sb.append("</dd>\n<dt>timeline</dt><dd class=\"timeline-cell\">");
      if (p.timeline().isPresent()) {
        sb.append(p.timeline().get().svg());
      } else {
        sb.append("timeline not measured here");
      }
      sb.append("</dd>\n</dl>\n</article>\n");
    }
    sb.append("<h2>Post a reply</h2>\n");
    draftError(sb, draft);
    sb.append("<form method=\"post\" action=\"/topics/")
        .append(Html.pathSegment(id))
        .append("/posts\" id=\"post-form\">\n");
    field(sb, "author", "Your name", Fields.MAX_AUTHOR, draft);
    area(sb, "Post", draft);
    sb.append("<button type=\"submit\" id=\"submit\">Post</button>\n</form>\n");
    return page(view.entry().title() + " - RafeStore forum", sb.toString(), storeDescription);
  }

  /**
   * The faults page: each cloud's state with its switches, a read-back check, and the faults the
   * store reported.
   *
   * @param message an error to show, or empty
   * @param read the result of a read-back, or null
   */
  static String faults(
      FaultControl control, List<Forum.TopicSummary> topics, String message, Forum.ReadBack read) {
    StringBuilder sb = new StringBuilder();
    sb.append("<p><a href=\"/\">All topics</a></p>\n<h1>Faults</h1>\n");
    sb.append("<p>The store tolerates f = ")
        .append(control.faultsTolerated())
        .append(" faulty cloud out of ")
        .append(control.clouds().size())
        .append(
            ", so one cloud at a time may be made faulty here: crashed, slowed down, or lying"
                + " (corrupt or stale answers). Heal it before choosing another. Posting and"
                + " reading keep working, and every value read is still the exact bytes whose"
                + " SHA-256 the writer signed.</p>\n");
    if (!message.isEmpty()) {
      sb.append("<p class=\"error\" id=\"message\">").append(escape(message)).append("</p>\n");
    }
    sb.append("<table id=\"clouds\"><tr><th>Cloud</th><th>State</th><th>Switch</th></tr>\n");
    for (String c : control.clouds()) {
      String state = control.state(c);
      sb.append("<tr data-cloud=\"")
          .append(escape(c))
          .append("\"><td>")
          .append(escape(c))
          .append("</td><td class=\"state")
          .append(state.equals("correct") ? "" : " faulty")
          .append("\">")
          .append(escape(state))
          .append("</td><td>");
      for (FaultControl.Action a : FaultControl.Action.values()) {
        sb.append("<form class=\"inline\" method=\"post\" action=\"/faults\">")
            .append("<input type=\"hidden\" name=\"cloud\" value=\"")
            .append(escape(c))
            .append("\"><input type=\"hidden\" name=\"action\" value=\"")
            .append(a.field())
            .append('"');
        sb.append(">");
        if (a == FaultControl.Action.SLOW) {
          sb.append("<input type=\"hidden\" name=\"delay_ms\" value=\"500\">");
        }
        sb.append("<button type=\"submit\" id=\"")
            .append(a.field())
            .append('-')
            .append(escape(c))
            .append("\" title=\"")
            .append(escape(a.description))
            .append("\">")
            .append(a == FaultControl.Action.SLOW ? "slow +500 ms" : a.field())
            .append("</button></form> ");
      }
      sb.append("</td></tr>\n");
    }
    sb.append("</table>\n");

    sb.append("<h2>Read back</h2>\n<form method=\"post\" action=\"/faults/read\" id=\"read-form\">")
        .append(
            "<label for=\"topic\">The newest post of</label><select id=\"topic\" name=\"topic\">");
    for (Forum.TopicSummary t : topics) {
      sb.append("<option value=\"")
          .append(escape(t.entry().id()))
          .append("\">")
          .append(escape(t.entry().title()))
          .append("</option>");
    }
    sb.append("</select> <button type=\"submit\" id=\"read\">Read</button></form>\n");
    if (read != null) {
      sb.append("<dl class=\"status\" id=\"read-result\">\n<dt>version</dt><dd>")
          .append(escape(read.value().version().toString()))
          .append("</dd>\n<dt>served by</dt><dd class=\"served-by\">")
          .append(escape(read.value().servedBy()))
          .append("</dd>\n<dt>SHA-256 of bytes</dt><dd><code class=\"sha256\">")
          .append(read.sha256Hex())
          .append("</code></dd>\n<dt>signed SHA-256</dt><dd><code class=\"signed-sha256\">")
          .append(read.value().info().sha256Hex())
          .append("</code> ")
          .append(
              read.sha256Hex().equals(read.value().info().sha256Hex())
                  ? "<span class=\"verified\">(equal: the exact bytes written)</span>"
                  : "<span class=\"error\">(different!)</span>")
          .append("</dd>\n<dt>post</dt><dd class=\"read-post\">");
      if (read.post().isPresent()) {
        sb.append("<b>")
            .append(escape(read.post().get().author()))
            .append("</b>: ")
            .append(escape(read.post().get().body()));
      } else {
        sb.append(escape(read.problem()));
      }
      sb.append("</dd>\n</dl>\n");
    }

    sb.append("<h2>Faults the store reported</h2>\n");
    List<FaultControl.Event> events = control.events();
    if (events.isEmpty()) {
      sb.append("<p id=\"no-events\">None yet.</p>\n");
    } else {
      sb.append(
          "<table id=\"events\"><tr><th>Time</th><th>Cloud</th><th>Kind</th><th>Key</th>"
              + "<th>Detail</th></tr>\n");
      for (FaultControl.Event e : events) {
        sb.append("<tr class=\"event\" data-cloud=\"")
            .append(escape(e.fault().cloudId()))
            .append("\"><td>")
            .append(time(e.at()))
            .append("</td><td class=\"cloud\">")
            .append(escape(e.fault().cloudId()))
            .append("</td><td class=\"kind\">")
            .append(escape(e.fault().kind().name()))
            .append("</td><td>")
            .append(escape(e.key()))
            .append("</td><td>")
            .append(escape(abbreviate(e.fault().detail(), 160)))
            .append("</td></tr>\n");
      }
      sb.append("</table>\n");
    }
    return page("Faults - RafeStore forum", sb.toString(), "");
  }

  private static String abbreviate(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max) + "...";
  }

  static String error(int status, String reason, String message) {
    return page(
        status + " " + reason,
        "<h1>"
            + status
            + " "
            + escape(reason)
            + "</h1>\n<p class=\"error\" id=\"message\">"
            + escape(message)
            + "</p>\n<p><a href=\"/\">Back to the topics</a></p>\n",
        "");
  }

  private static void draftError(StringBuilder sb, Draft draft) {
    if (!draft.error().isEmpty()) {
      sb.append("<p class=\"error\" id=\"message\">")
          .append(escape(draft.error()))
          .append("</p>\n");
    }
  }

  private static void field(StringBuilder sb, String name, String label, int max, Draft draft) {
    sb.append("<label for=\"")
        .append(name)
        .append("\">")
        .append(label)
        .append("</label><input type=\"text\" id=\"")
        .append(name)
        .append("\" name=\"")
        .append(name)
        .append("\" maxlength=\"")
        .append(max)
        .append("\" value=\"")
        .append(escape(draft.value(name)))
        .append("\" required>\n");
  }

  private static void area(StringBuilder sb, String label, Draft draft) {
    sb.append("<label for=\"body\">")
        .append(label)
        .append("</label><textarea id=\"body\" name=\"body\" rows=\"5\" maxlength=\"")
        .append(Fields.MAX_BODY)
        .append("\" required>")
        .append(escape(draft.value("body")))
        .append("</textarea>\n");
  }

  private static String page(String title, String content, String storeDescription) {
    return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>"
        + escape(title)
        + "</title>\n<style>"
        + STYLE
        + "</style>\n</head>\n<body>\n"
        + content
        + (storeDescription.isEmpty()
            ? ""
            : "<footer>Store: " + escape(storeDescription) + "</footer>\n")
        + "</body>\n</html>\n";
  }
}
