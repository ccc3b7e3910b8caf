package io.rafestore.examples.forum;

import static org.assertj.core.api.Assertions.assertThat;

import com.rometools.rome.feed.rss.Channel;
import com.rometools.rome.feed.rss.Item;
import com.rometools.rome.feed.synd.SyndFeed;
import com.rometools.rome.io.SyndFeedInput;
import com.rometools.rome.io.WireFeedInput;
import java.io.StringReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xml.sax.InputSource;

/**
 * Every route over real HTTP: the app on its embedded default store (directory clouds behind the
 * emulated WAN, time-scaled down to a hundredth) on a free port, driven with the JDK's HTTP client.
 */
class ForumHttpTest {
  private static final String FORM = "application/x-www-form-urlencoded";
  private static final double TEST_TIME_SCALE = 0.01;

  @TempDir static Path data;
  private static ForumApp app;
  private static URI base;
  private static final HttpClient http =
      HttpClient.newBuilder()
          .followRedirects(HttpClient.Redirect.NEVER)
          .connectTimeout(Duration.ofSeconds(10))
          .build();

  @BeforeAll
  static void start() throws Exception {
    app = ForumApp.start(new ForumApp.Options(0, Optional.of(data)), TEST_TIME_SCALE);
    base = app.uri();
  }

  @AfterAll
  static void stop() {
    if (app != null) {
      app.close();
    }
  }

  // --- GET / ------------------------------------------------------------------------------

  @Test
  void topicListShowsTheSeededTopicAndTheNewTopicForm() throws Exception {
    HttpResponse<String> r = get("/");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
    assertThat(r.headers().firstValue("Content-Security-Policy").orElseThrow())
        .contains("default-src 'none'");
    assertThat(r.body())
        .contains("<a href=\"/topics/welcome\">Welcome to the RafeStore forum</a>")
        .contains("<form method=\"post\" action=\"/topics\"")
        .contains("name=\"title\"", "name=\"author\"", "name=\"body\"");
  }

  @Test
  void creatingATopicRedirectsToItAndTheListCountsItsPostAndTime() throws Exception {
    HttpResponse<String> r =
        post("/topics", "title", "Cakes & <ales>", "author", "ann", "body", "first!");
    assertThat(r.statusCode()).isEqualTo(303);
    String location = r.headers().firstValue("Location").orElseThrow();
    assertThat(location).matches("/topics/cakes-ales-[a-z2-9]{6}");
    String id = location.substring("/topics/".length());

    HttpResponse<String> page = get(location);
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body()).contains("<h1>Cakes &amp; &lt;ales&gt;</h1>", "first!");

    String list = get("/").body();
    Matcher row =
        Pattern.compile(
                "<a href=\"/topics/"
                    + id
                    + "\">Cakes &amp; &lt;ales&gt;</a></td><td>(\\d+)</td><td>([^<]+)</td>")
            .matcher(list);
    assertThat(row.find()).as("row of the new topic in %s", list).isTrue();
    assertThat(row.group(1)).isEqualTo("1");
    assertThat(row.group(2)).matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC");
    // Newest topic first.
    assertThat(list.indexOf("/topics/" + id)).isLessThan(list.indexOf("/topics/welcome\""));
  }

  // --- GET /topics/{id}, POST /topics/{id}/posts -------------------------------------------

  @Test
  void postingRedirectsWith303AndThePageShowsThePostWithItsStatusPanel() throws Exception {
    String id = newTopic("Status panel");
    HttpResponse<String> r =
        post("/topics/" + id + "/posts", "author", "bob", "body", "hello\nworld");
    assertThat(r.statusCode()).isEqualTo(303);
    String location = r.headers().firstValue("Location").orElseThrow();
    assertThat(location).isEqualTo("/topics/" + id + "#" + anchor(id, 2));

    String page = get("/topics/" + id).body();
    assertThat(page).contains("2 posts, oldest first");
    String post = article(page, anchor(id, 2));
    assertThat(post)
        .contains("#2 &middot; <b>bob</b>", "version " + versionOf(id, 2))
        .contains("<div class=\"body\">hello\nworld</div>")
        .containsPattern("<dd class=\"latency\">\\d+\\.\\d ms</dd>")
        .contains("<dd class=\"data-clouds\">p0, p1</dd>")
        .contains("acknowledged by ")
        .contains("sent to all of p0, p1, p2, p3")
        // Written here, so the store's read tier kept its bytes (write-through): the page read
        // it from the cache, without asking a cloud.
        .contains(
            "<dd class=\"source\">the cache (no cloud asked; checked against the signed"
                + " SHA-256)</dd>");
    // Oldest first.
    assertThat(page.indexOf("id=\"" + anchor(id, 1) + "\""))
        .isLessThan(page.indexOf("id=\"" + anchor(id, 2) + "\""));
  }

  @Test
  void pageViewsReadPostsFromTheStoresCacheWithoutAskingACloudForData() throws Exception {
    String id = newTopic("Read tier");
    var store = app.store();
    get("/topics/" + id);
    long hits = store.readTierStats().hits();
    long misses = store.readTierStats().misses();
    // readM answers after n - f clouds; the last cloud's log get may still be on its way, and
    // counts when it ends. Wait for the counters to settle so each count belongs to one page view.
    String first = anchor(id, 1); // the test's own history call, before the count starts
    long gets = settledGets(store);
    String again = article(get("/topics/" + id).body(), first);
    assertThat(again)
        .contains(
            "<dd class=\"source\">the cache (no cloud asked; checked against the signed"
                + " SHA-256)</dd>");
    assertThat(store.readTierStats().hits()).isGreaterThan(hits);
    // The page's history calls still run readM (one log get per cloud and key); no data get.
    long after = settledGets(store);
    assertThat(store.readTierStats().misses()).isEqualTo(misses);
    assertThat(after - gets).isLessThanOrEqualTo(2 * 4);
  }

  /** The store's gets so far, once no get has ended for 500 ms (at most 10 s). */
  private static long settledGets(io.rafestore.RafeStore store) throws InterruptedException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    long last = -1;
    while (true) {
      long now = store.stats().values().stream().mapToLong(io.rafestore.CloudStats::gets).sum();
      if (now == last || System.nanoTime() > deadline) {
        return now;
      }
      last = now;
      Thread.sleep(500);
    }
  }

  @Test
  void postsWrittenByAnotherClientShowNotMeasuredHereAndGarbageIsReportedNotRendered()
      throws Exception {
    String id = newTopic("Other writers");
    // Straight to the store, as another server process would: this process has no receipt.
    var store = app.store();
    store.blocking().write(Forum.topicKey(id), new Post("carol", "from elsewhere").encode());
    store
        .blocking()
        .write(Forum.topicKey(id), "<script>alert(1)</script>".getBytes(StandardCharsets.UTF_8));

    String page = get("/topics/" + id).body();
    String other = article(page, anchor(id, 2));
    assertThat(other)
        .contains("from elsewhere")
        .contains("<dd class=\"latency\">not measured here</dd>")
        .contains("<dd class=\"data-clouds\">p0, p1</dd>")
        .contains("acknowledgements not measured here");
    String garbage = article(page, anchor(id, 3));
    assertThat(garbage).contains("unreadable: not a forum post").doesNotContain("<script");
  }

  @Test
  void headOfAPageHasNoBody() throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(base.resolve("/topics/welcome"))
                .method("HEAD", HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEmpty();
  }

  // --- GET /topics/{id}/rss ---------------------------------------------------------------

  @Test
  void rssFeedParsesBackWithTitleItemsLinksGuidsAndDates() throws Exception {
    Instant before = Instant.now().minusSeconds(60);
    String id = newTopic("Feed me");
    post("/topics/" + id + "/posts", "author", "dan", "body", "second post");
    post("/topics/" + id + "/posts", "author", "erin", "body", "third post");

    HttpResponse<String> r = get("/topics/" + id + "/rss");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type"))
        .hasValue("application/rss+xml; charset=utf-8");

    Channel channel =
        (Channel) new WireFeedInput().build(new InputSource(new StringReader(r.body())));
    String topicUrl = base.resolve("/topics/" + id).toString();
    assertThat(channel.getFeedType()).isEqualTo("rss_2.0");
    assertThat(channel.getTitle()).isEqualTo("Feed me - RafeStore forum");
    assertThat(channel.getLink()).isEqualTo(topicUrl);
    assertThat(channel.getDescription()).isNotBlank();
    List<Item> items = channel.getItems();
    assertThat(items)
        .extracting(Item::getTitle)
        .containsExactly("#3 by erin", "#2 by dan", "#1 by author-of-Feed me");
    for (int i = 0; i < items.size(); i++) {
      Item item = items.get(i);
      // The anchor names the version: timestamp, writer id and the writer's incarnation.
      String link = item.getLink();
      assertThat(link)
          .matches(
              java.util.regex.Pattern.quote(topicUrl + "#v-" + (3 - i) + "-forum-")
                  + "[0-9a-f]{16}");
      assertThat(item.getGuid().getValue()).isEqualTo(link);
      assertThat(item.getGuid().isPermaLink()).isTrue();
      assertThat(item.getPubDate().toInstant())
          .isAfter(before)
          .isBefore(Instant.now().plusSeconds(60));
    }
    assertThat(items.get(0).getDescription().getValue()).isEqualTo("third post");

    // The generic API reads it as RSS 2.0 too.
    SyndFeed feed = new SyndFeedInput().build(new StringReader(r.body()));
    assertThat(feed.getFeedType()).isEqualTo("rss_2.0");
    assertThat(feed.getEntries()).hasSize(3);
  }

  // --- HTML injection ---------------------------------------------------------------------

  @Test
  void htmlInjectionIsRenderedAsTextOnThePageAndInTheFeed() throws Exception {
    String id = newTopic("Injection");
    String script = "<script>alert(1)</script>";
    String img = "\"><img src=x onerror=alert(1)>";
    post("/topics/" + id + "/posts", "author", img, "body", script + "\n" + img);
    post("/topics/" + id + "/posts", "author", "x' onmouseover='alert(1)", "body", "ok");

    String page = get("/topics/" + id).body();
    assertThat(page)
        .doesNotContain("<script", "<img", "onmouseover='")
        .contains("&lt;script&gt;alert(1)&lt;/script&gt;")
        .contains("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;")
        .contains("x&#39; onmouseover=&#39;alert(1)");

    String xml = get("/topics/" + id + "/rss").body();
    assertThat(xml).doesNotContain("<script", "<img");
    Channel channel = (Channel) new WireFeedInput().build(new InputSource(new StringReader(xml)));
    String description = channel.getItems().get(1).getDescription().getValue();
    // The description is HTML for RSS readers: escaped, so a reader shows the text.
    assertThat(description)
        .doesNotContain("<script", "<img")
        .contains("&lt;script&gt;alert(1)&lt;/script&gt;<br>");
  }

  // --- GET /health ------------------------------------------------------------------------

  @Test
  void healthAnswersOkWhenTheStoreAnswers() throws Exception {
    HttpResponse<String> r = get("/health");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("ok\n");
  }

  // --- 400 --------------------------------------------------------------------------------

  @Test
  void invalidFieldsAnswer400NamingTheField() throws Exception {
    String posts = "/topics/welcome/posts";
    assertBadRequest(postRaw(posts, FORM, "body=hi"), "field &#39;author&#39; is missing");
    assertBadRequest(postRaw(posts, FORM, "author=a&body=+++"), "field &#39;body&#39; is empty");
    assertBadRequest(
        post(posts, "author", "a".repeat(41), "body", "x"),
        "field &#39;author&#39; has 41 characters; at most 40");
    assertBadRequest(
        post(posts, "author", "a", "body", "y".repeat(4001)),
        "field &#39;body&#39; has 4001 characters; at most 4000");
    assertBadRequest(
        post(posts, "author", "a\nb", "body", "x"), "field &#39;author&#39; must be one line");
    assertBadRequest(
        post(posts, "author", "a", "body", "bell\u0007"), "field &#39;body&#39; contains control");
    assertBadRequest(
        postRaw(posts, FORM, "author=a&body=%FF%FE"), "field &#39;body&#39; is not valid UTF-8");
    assertBadRequest(
        postRaw(posts, FORM, "author=a&body=100%zz"), "field &#39;body&#39; has a malformed");
    assertBadRequest(postRaw(posts, FORM, "author=a&body=x%4"), "truncated %-escape");
    assertBadRequest(
        postRaw(posts, FORM, "author=a&author=b&body=x"), "field &#39;author&#39; is given more");
    assertBadRequest(
        post("/topics", "author", "a", "body", "x"), "field &#39;title&#39; is missing");
    assertBadRequest(get("/topics/Not_Valid"), "topic id must be 1 to 64 characters");
    assertBadRequest(get("/topics/" + "a".repeat(65)), "topic id must be 1 to 64");
    assertBadRequest(get("/topics/-x/rss"), "topic id");
    assertBadRequest(get("/topics/%3Cscript%3E"), "topic id");
  }

  @Test
  void aRefusedFormIsShownAgainWithTheVisitorsTextEscapedAndTheReason() throws Exception {
    String longName = "\"><script>alert(1)</script>" + "x".repeat(40);
    String body = "</textarea><script>alert(2)</script>";
    HttpResponse<String> r = post("/topics/welcome/posts", "author", longName, "body", body);
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body())
        .doesNotContain("<script")
        .contains("<p class=\"error\" id=\"message\">field &#39;author&#39; has 67 characters")
        .contains("value=\"&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;xxxx")
        .contains(">&lt;/textarea&gt;&lt;script&gt;alert(2)&lt;/script&gt;</textarea>")
        // Still the topic page, with its posts.
        .contains("<h1>Welcome to the RafeStore forum</h1>");

    HttpResponse<String> topic = post("/topics", "title", "", "author", "ann", "body", "kept text");
    assertThat(topic.statusCode()).isEqualTo(400);
    assertThat(topic.body())
        .contains("field &#39;title&#39; is empty")
        .contains("value=\"ann\"")
        .contains(">kept text</textarea>");
  }

  @Test
  void aBodyThatIsNotAUtf8FormIsRefusedWith415AndAHugeOneWith413() throws Exception {
    HttpResponse<String> json = postRaw("/topics/welcome/posts", "application/json", "{}");
    assertThat(json.statusCode()).isEqualTo(415);
    assertThat(json.body()).contains("application/json is not supported");
    HttpResponse<String> latin1 =
        postRaw("/topics/welcome/posts", FORM + "; charset=ISO-8859-1", "author=a&body=b");
    assertThat(latin1.statusCode()).isEqualTo(415);
    assertThat(latin1.body()).contains("charset iso-8859-1 is not supported");
    HttpResponse<String> huge =
        postRaw("/topics/welcome/posts", FORM, "author=a&body=" + "x".repeat(70_000));
    assertThat(huge.statusCode()).isEqualTo(413);
  }

  // --- 404, 405 ---------------------------------------------------------------------------

  @Test
  void unknownPathsAndTopicsAnswer404() throws Exception {
    assertThat(get("/nope").statusCode()).isEqualTo(404);
    assertThat(get("/topics/welcome/extra").statusCode()).isEqualTo(404);
    assertThat(get("/topics/welcome/rss/more").statusCode()).isEqualTo(404);
    HttpResponse<String> unknown = get("/topics/no-such-topic");
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(unknown.body()).contains("no topic &#39;no-such-topic&#39;");
    assertThat(get("/topics/no-such-topic/rss").statusCode()).isEqualTo(404);
    assertThat(post("/topics/no-such-topic/posts", "author", "a", "body", "b").statusCode())
        .isEqualTo(404);
    // No topic was created by posting to it.
    assertThat(get("/").body()).doesNotContain("no-such-topic");
  }

  @Test
  void wrongMethodsAnswer405WithAllow() throws Exception {
    assertMethodNotAllowed(send("POST", "/"), "GET, HEAD");
    assertMethodNotAllowed(send("DELETE", "/topics/welcome"), "GET, HEAD");
    assertMethodNotAllowed(send("PUT", "/topics/welcome/rss"), "GET, HEAD");
    assertMethodNotAllowed(send("GET", "/topics/welcome/posts"), "POST");
    assertMethodNotAllowed(send("GET", "/topics"), "POST");
    assertMethodNotAllowed(send("POST", "/health"), "GET, HEAD");
  }

  // --- helpers ----------------------------------------------------------------------------

  /** Creates a topic whose first post is by "author-of-TITLE"; returns its id. */
  private static String newTopic(String title) throws Exception {
    HttpResponse<String> r =
        post("/topics", "title", title, "author", "author-of-" + title, "body", "opening post");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(303);
    return r.headers().firstValue("Location").orElseThrow().substring("/topics/".length());
  }

  /** The version with timestamp {@code n} of topic {@code id} (the forum has one writer). */
  private static io.rafestore.Version versionOf(String id, int n) throws Exception {
    for (var info :
        app.store()
            .blocking()
            .history(Forum.topicKey(id), java.util.Optional.empty(), 100)
            .versions()) {
      if (info.version().timestamp() == n) {
        return info.version();
      }
    }
    throw new AssertionError("topic " + id + " has no version " + n);
  }

  /** The HTML id of post {@code n} of topic {@code id}. */
  private static String anchor(String id, int n) throws Exception {
    return Pages.anchor(versionOf(id, n));
  }

  private static String article(String page, String anchor) {
    int start = page.indexOf("<article class=\"post\" id=\"" + anchor + "\">");
    assertThat(start).as("post %s on the page", anchor).isNotNegative();
    return page.substring(start, page.indexOf("</article>", start));
  }

  private static void assertBadRequest(HttpResponse<String> r, String message) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
    assertThat(r.body()).contains(message);
  }

  private static void assertMethodNotAllowed(HttpResponse<String> r, String allow) {
    assertThat(r.statusCode()).isEqualTo(405);
    assertThat(r.headers().firstValue("Allow")).hasValue(allow);
  }

  private static HttpResponse<String> get(String path) throws Exception {
    return send("GET", path);
  }

  private static HttpResponse<String> send(String method, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(base.resolve(path))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> post(String path, String... nameValues) throws Exception {
    StringBuilder body = new StringBuilder();
    for (int i = 0; i < nameValues.length; i += 2) {
      if (body.length() > 0) {
        body.append('&');
      }
      body.append(URLEncoder.encode(nameValues[i], StandardCharsets.UTF_8))
          .append('=')
          .append(URLEncoder.encode(nameValues[i + 1], StandardCharsets.UTF_8));
    }
    return postRaw(path, FORM, body.toString());
  }

  private static HttpResponse<String> postRaw(String path, String type, String body)
      throws Exception {
    return http.send(
        HttpRequest.newBuilder(base.resolve(path))
            .header("Content-Type", type)
            .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
