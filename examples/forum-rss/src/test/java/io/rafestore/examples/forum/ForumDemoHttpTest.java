package io.rafestore.examples.forum;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's protocol views over real HTTP: the per-post timeline of a write's phases, and the
 * {@code /faults} page that makes one cloud faulty while posting and reading stay exact. A fresh
 * forum per test (embedded store, time-scaled to a hundredth), so fault state never leaks.
 */
class ForumDemoHttpTest {
  private static final String FORM = "application/x-www-form-urlencoded";
  private static final HttpClient http =
      HttpClient.newBuilder()
          .followRedirects(HttpClient.Redirect.NEVER)
          .connectTimeout(Duration.ofSeconds(10))
          .build();

  @TempDir Path data;
  private ForumApp app;
  private URI base;

  @BeforeEach
  void start() throws Exception {
    app = ForumApp.start(new ForumApp.Options(0, Optional.of(data)), 0.01);
    base = app.uri();
  }

  @AfterEach
  void stop() {
    if (app != null) {
      app.close();
    }
  }

  // --- the timeline ------------------------------------------------------------------------

  @Test
  void aPostsStatusPanelDrawsItsWritePhasesPerCloud() throws Exception {
    String location = postTo("welcome", "tim", "timed post");
    String article = article(get("/topics/welcome").body(), location);
    String svg = svg(article);
    for (String cloud : new String[] {"p0", "p1", "p2", "p3"}) {
      assertThat(svg).contains("<g class=\"row\" data-cloud=\"" + cloud + "\">");
    }
    // Configuration 1: the value goes to p0 and p1 (writeDo), every cloud's log is read (readM)
    // and written (writeM); no writeDf, since p1 acknowledges long before readM ends.
    assertThat(row(svg, "p0")).contains("class=\"bar writeDo ok\"", "class=\"bar readM ");
    assertThat(row(svg, "p1")).contains("class=\"bar writeDo ok\"");
    assertThat(row(svg, "p3")).doesNotContain("writeDo").contains("class=\"bar writeM ");
    for (String cloud : new String[] {"p0", "p1", "p2", "p3"}) {
      assertThat(row(svg, cloud)).contains("class=\"bar readM ", "class=\"bar writeM ");
    }
    assertThat(svg).doesNotContain("writeDf");
    assertThat(svg).contains("<line class=\"crucial-check\"", "<line class=\"completion\"");
    assertThat(article).contains("<div class=\"legend\">");
    // Bars carry their times as tooltips, in ms from the start.
    assertThat(svg)
        .containsPattern(
            "<title>p0: writeDo put d/forum%2Ftopics%2Fwelcome/[^<]*, \\d+\\.\\d to \\d+\\.\\d ms, ok</title>");
  }

  @Test
  void aSlowDataCloudMakesTheTimelineShowWriteDfToTheExtraCloud() throws Exception {
    assertThat(switchCloud("p1", "slow", "500").statusCode()).isEqualTo(303);
    String location = postTo("welcome", "slowpoke", "p1 is slow");
    String svg = svg(article(get("/topics/welcome").body(), location));
    // readM ends before p1's writeDo acknowledgement: the crucial check sends the value to p2.
    assertThat(row(svg, "p2")).contains("class=\"bar writeDf ok\"");
    assertThat(row(svg, "p1")).contains("class=\"bar writeDo ");
    assertThat(svg).contains("class=\"bar readM ", "class=\"bar writeM ");
  }

  @Test
  void postsWrittenElsewhereHaveNoTimeline() throws Exception {
    app.store()
        .blocking()
        .write(Forum.topicKey("welcome"), new Post("carol", "from elsewhere").encode());
    String page = get("/topics/welcome").body();
    assertThat(page).contains("timeline not measured here");
  }

  // --- the faults page ---------------------------------------------------------------------

  @Test
  void theFaultsPageListsEveryCloudAsCorrectWithItsSwitches() throws Exception {
    HttpResponse<String> r = get("/faults");
    assertThat(r.statusCode()).isEqualTo(200);
    for (String cloud : new String[] {"p0", "p1", "p2", "p3"}) {
      assertThat(state(r.body(), cloud)).isEqualTo("correct");
      assertThat(r.body()).contains("id=\"crash-" + cloud + "\"", "id=\"corrupt-" + cloud + "\"");
    }
    assertThat(r.body()).contains("f = 1", "<p id=\"no-events\">None yet.</p>");
  }

  @Test
  void withOneCloudCrashedPostingAndReadingWorkAndTheFaultIsListed() throws Exception {
    assertThat(events(get("/faults").body())).isEmpty();
    assertThat(switchCloud("p0", "crash", null).statusCode()).isEqualTo(303);
    assertThat(state(get("/faults").body(), "p0")).isEqualTo("crashed");

    postTo("welcome", "crashy", "written with p0 down");
    HttpResponse<String> read = readBack("welcome");
    assertThat(read.statusCode()).isEqualTo(200);
    assertExact(read.body(), "crashy", "written with p0 down");
    assertThat(read.body()).doesNotContain("<dd class=\"served-by\">p0</dd>");
    assertThat(read.body()).contains("<td class=\"kind\">ERROR</td>", "unavailable: crashed");
    assertThat(events(read.body())).isNotEmpty().allMatch(cloud -> cloud.equals("p0"));
  }

  @Test
  void withOneCloudCorruptReadsReturnTheExactBytesAndTheLieIsReported() throws Exception {
    postTo("welcome", "honest", "these exact bytes");
    assertThat(events(get("/faults").body())).isEmpty();
    assertThat(switchCloud("p0", "corrupt", null).statusCode()).isEqualTo(303);
    assertThat(state(get("/faults").body(), "p0")).isEqualTo("corrupt");

    HttpResponse<String> read = readBack("welcome");
    assertThat(read.statusCode()).isEqualTo(200);
    assertExact(read.body(), "honest", "these exact bytes");
    // p0 is the fastest holder, so it was asked first and lied; another holder served the value:
    // p1, or p2 when writeDf's extra copy had landed there and the latency model (fed by measured,
    // jittered round trips on a loaded machine) predicted p2 first. Never p0.
    assertThat(read.body()).containsPattern("<dd class=\"served-by\">p[12]</dd>");
    assertThat(read.body())
        .containsPattern("<td class=\"kind\">(CORRUPT_DATA|BAD_SIGNATURE|MALFORMED_METADATA)</td>");
    assertThat(events(read.body())).isNotEmpty().allMatch(cloud -> cloud.equals("p0"));
  }

  @Test
  void aSecondFaultyCloudIsRefusedAndHealingRestores() throws Exception {
    assertThat(switchCloud("p0", "crash", null).statusCode()).isEqualTo(303);
    HttpResponse<String> second = switchCloud("p1", "stale", null);
    assertThat(second.statusCode()).isEqualTo(409);
    assertThat(second.body())
        .contains("refused: p0 is faulty already, and this store tolerates f = 1");
    assertThat(state(second.body(), "p1")).isEqualTo("correct");
    // The same cloud may change its fault.
    assertThat(switchCloud("p0", "stale", null).statusCode()).isEqualTo(303);
    assertThat(state(get("/faults").body(), "p0")).isEqualTo("stale");

    assertThat(switchCloud("p0", "heal", null).statusCode()).isEqualTo(303);
    String healed = get("/faults").body();
    for (String cloud : new String[] {"p0", "p1", "p2", "p3"}) {
      assertThat(state(healed, cloud)).isEqualTo("correct");
    }
    assertThat(switchCloud("p1", "corrupt", null).statusCode()).isEqualTo(303);
    assertThat(state(get("/faults").body(), "p1")).isEqualTo("corrupt");
  }

  @Test
  void badFaultFormsAreRefusedWithClearErrors() throws Exception {
    assertBad(
        switchCloud("p9", "crash", null), "field &#39;cloud&#39; must be one of p0, p1, p2, p3");
    assertBad(switchCloud("p0", "explode", null), "field &#39;action&#39; must be one of crash");
    assertBad(switchCloud("p0", "slow", null), "field &#39;delay_ms&#39; is missing");
    assertBad(switchCloud("p0", "slow", "abc"), "field &#39;delay_ms&#39; must be a whole number");
    assertBad(switchCloud("p0", "slow", "0"), "field &#39;delay_ms&#39; must be 1 to 10000");
    assertBad(post("/faults", "action", "crash"), "field &#39;cloud&#39; is missing");
    assertBad(post("/faults/read", "topic", "Not_Valid"), "topic id");
    assertThat(post("/faults/read", "topic", "no-such-topic").statusCode()).isEqualTo(404);
    HttpResponse<String> wrong = get("/faults/read");
    assertThat(wrong.statusCode()).isEqualTo(405);
    assertThat(wrong.headers().firstValue("Allow")).hasValue("POST");
    // Nothing was switched.
    assertThat(state(get("/faults").body(), "p0")).isEqualTo("correct");
  }

  // --- helpers ----------------------------------------------------------------------------

  private HttpResponse<String> switchCloud(String cloud, String action, String delayMs)
      throws Exception {
    return delayMs == null
        ? post("/faults", "cloud", cloud, "action", action)
        : post("/faults", "cloud", cloud, "action", action, "delay_ms", delayMs);
  }

  private HttpResponse<String> readBack(String topic) throws Exception {
    return post("/faults/read", "topic", topic);
  }

  /** Posts and returns the new post's anchor. */
  private String postTo(String topic, String author, String body) throws Exception {
    HttpResponse<String> r = post("/topics/" + topic + "/posts", "author", author, "body", body);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(303);
    String location = r.headers().firstValue("Location").orElseThrow();
    return location.substring(location.indexOf('#') + 1);
  }

  /** The read-back shows the post, and the hash of the bytes read is that of the bytes posted. */
  private static void assertExact(String page, String author, String body) throws Exception {
    String posted =
        HexFormat.of()
            .formatHex(
                MessageDigest.getInstance("SHA-256").digest(new Post(author, body).encode()));
    assertThat(group(page, "<code class=\"sha256\">([0-9a-f]{64})</code>")).isEqualTo(posted);
    assertThat(group(page, "<code class=\"signed-sha256\">([0-9a-f]{64})</code>"))
        .isEqualTo(posted);
    assertThat(page)
        .contains("<dd class=\"read-post\"><b>" + author + "</b>: " + body + "</dd>")
        .contains("(equal: the exact bytes written)");
  }

  private static java.util.List<String> events(String page) {
    java.util.List<String> out = new java.util.ArrayList<>();
    Matcher m = Pattern.compile("<tr class=\"event\" data-cloud=\"([^\"]+)\">").matcher(page);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  private static String state(String page, String cloud) {
    return group(
        page,
        "<tr data-cloud=\""
            + cloud
            + "\"><td>"
            + cloud
            + "</td><td class=\"state[^\"]*\">([^<]+)<");
  }

  private static String group(String text, String regex) {
    Matcher m = Pattern.compile(regex).matcher(text);
    assertThat(m.find()).as("%s in %s", regex, text).isTrue();
    return m.group(1);
  }

  private static String article(String page, String anchor) {
    int start = page.indexOf("<article class=\"post\" id=\"" + anchor + "\">");
    assertThat(start).as("post %s on the page", anchor).isNotNegative();
    return page.substring(start, page.indexOf("</article>", start));
  }

  private static String svg(String article) {
    int start = article.indexOf("<svg class=\"timeline\"");
    assertThat(start).as("a timeline in %s", article).isNotNegative();
    return article.substring(start, article.indexOf("</svg>", start));
  }

  private static String row(String svg, String cloud) {
    int start = svg.indexOf("<g class=\"row\" data-cloud=\"" + cloud + "\">");
    assertThat(start).isNotNegative();
    return svg.substring(start, svg.indexOf("</g>", start));
  }

  private static void assertBad(HttpResponse<String> r, String message) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
    assertThat(r.body()).contains(message);
  }

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(base.resolve(path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String path, String... nameValues) throws Exception {
    StringBuilder body = new StringBuilder();
    for (int i = 0; i < nameValues.length; i += 2) {
      if (body.length() > 0) {
        body.append('&');
      }
      body.append(URLEncoder.encode(nameValues[i], StandardCharsets.UTF_8))
          .append('=')
          .append(URLEncoder.encode(nameValues[i + 1], StandardCharsets.UTF_8));
    }
    return http.send(
        HttpRequest.newBuilder(base.resolve(path))
            .header("Content-Type", FORM)
            .POST(HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.UTF_8))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
