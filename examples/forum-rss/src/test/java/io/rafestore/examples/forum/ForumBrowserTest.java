package io.rafestore.examples.forum;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * End to end in a real browser: headless Chromium, driven by Selenium through chromedriver, opens a
 * topic, fills the form, submits, and sees the post on the page it is redirected to; then draws a
 * post's timeline (with one cloud slowed, so all four phases appear) and uses the faults page, and
 * saves screenshots of both to {@code target/forum-timeline.png} and {@code
 * target/forum-faults.png}.
 *
 * <p>Needs Debian's {@code chromium} and {@code chromium-driver} ({@code scripts/test.sh} installs
 * them; the paths can be overridden with {@code CHROMIUM_BIN} and {@code CHROMEDRIVER_BIN}). Where
 * they are missing the test is skipped with a message saying so, never passed. Both binaries are
 * given to Selenium explicitly, so Selenium Manager never runs (it would try to download them).
 */
class ForumBrowserTest {
  /**
   * Selenium warns that it has no DevTools binding for this Chromium version; this test uses only
   * WebDriver, so the warning is noise. Held in a field so the configured logger is not collected.
   */
  private static final java.util.logging.Logger SELENIUM_LOG =
      java.util.logging.Logger.getLogger("org.openqa.selenium");

  @TempDir static Path data;
  @TempDir static Path profile;
  private static ForumApp app;
  private static WebDriver browser;
  private static String skipReason;

  @BeforeAll
  static void start() throws Exception {
    SELENIUM_LOG.setLevel(java.util.logging.Level.SEVERE);
    Optional<Path> chromium =
        binary("CHROMIUM_BIN", "/usr/bin/chromium", "/usr/bin/chromium-browser");
    Optional<Path> driver = binary("CHROMEDRIVER_BIN", "/usr/bin/chromedriver");
    if (chromium.isEmpty() || driver.isEmpty()) {
      skipReason =
          "SKIPPED: headless Chromium end-to-end test: "
              + (chromium.isEmpty() ? "chromium" : "chromedriver")
              + " is not installed (apt-get install -y chromium chromium-driver, or set"
              + " CHROMIUM_BIN and CHROMEDRIVER_BIN)";
      System.err.println(skipReason);
      return;
    }
    app = ForumApp.start(new ForumApp.Options(0, Optional.of(data)), 0.01);
    ChromeOptions options = new ChromeOptions();
    options.setBinary(chromium.get().toFile());
    options.addArguments(
        "--headless=new",
        "--no-sandbox", // tests run as root in containers, where the sandbox cannot start
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--no-first-run",
        "--user-data-dir=" + profile);
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(driver.get().toFile())
            .usingAnyFreePort()
            .build();
    browser = new ChromeDriver(service, options);
  }

  /** Skips each test (counted and reported as skipped, with the reason) without a browser. */
  @BeforeEach
  void needsABrowser() {
    Assumptions.assumeTrue(skipReason == null, skipReason);
  }

  @AfterAll
  static void stop() {
    if (browser != null) {
      browser.quit();
    }
    if (app != null) {
      app.close();
    }
  }

  @Test
  void postingFromTheBrowserShowsThePost() {
    browser.get(app.uri().resolve("/topics/welcome").toString());
    assertThat(browser.findElement(By.tagName("h1")).getText()).isEqualTo(ForumApp.WELCOME_TITLE);

    String text = "Posted from headless Chromium <b>not bold</b>";
    browser.findElement(By.id("author")).sendKeys("Selenium");
    browser.findElement(By.id("body")).sendKeys(text);
    browser.findElement(By.id("submit")).click();

    WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(30));
    wait.until(ExpectedConditions.urlContains("#v-2-forum"));
    // The post's id is its version: timestamp, writer and the writer's incarnation.
    WebElement post =
        wait.until(
            ExpectedConditions.visibilityOfElementLocated(By.cssSelector("[id^='v-2-forum-']")));
    assertThat(post.findElement(By.className("body")).getText()).isEqualTo(text);
    assertThat(post.findElement(By.className("meta")).getText()).contains("#2", "Selenium");
    // The markup in the post is text, not an element.
    assertThat(post.findElements(By.cssSelector(".body b"))).isEmpty();
    assertThat(post.findElement(By.className("latency")).getText()).endsWith(" ms");
    assertThat(post.findElement(By.className("data-clouds")).getText()).isEqualTo("p0, p1");

    // And it is in the topic's feed, newest first.
    browser.findElement(By.id("rss")).click();
    wait.until(ExpectedConditions.urlContains("/topics/welcome/rss"));
    String feed = browser.getPageSource();
    assertThat(feed).contains("#2 by Selenium").contains("Posted from headless Chromium");
  }

  @Test
  void theTimelineAndTheFaultsPageRenderAndAreScreenshot() throws Exception {
    WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(30));
    browser.manage().window().setSize(new org.openqa.selenium.Dimension(1000, 1400));

    // Slow p1 down, so the write needs writeDf and the timeline shows all four phases.
    browser.get(app.uri().resolve("/faults").toString());
    browser.findElement(By.id("slow-p1")).click();
    wait.until(
        ExpectedConditions.textToBePresentInElementLocated(
            By.cssSelector("tr[data-cloud='p1'] .state"), "slowed down"));

    // A topic of its own, so the other test's post numbers do not depend on the order.
    browser.get(app.uri().toString());
    browser.findElement(By.id("title")).sendKeys("Timeline demo");
    browser.findElement(By.id("author")).sendKeys("Timeline");
    browser.findElement(By.id("body")).sendKeys("opening post");
    browser.findElement(By.cssSelector("#new-topic button")).click();
    wait.until(ExpectedConditions.presenceOfElementLocated(By.id("post-form")));
    String topic = browser.getCurrentUrl();
    browser.findElement(By.id("author")).sendKeys("Timeline");
    browser.findElement(By.id("body")).sendKeys("a write while p1 is slow");
    browser.findElement(By.id("submit")).click();
    wait.until(ExpectedConditions.urlContains("#v-"));
    String anchor = browser.getCurrentUrl().substring(browser.getCurrentUrl().indexOf('#') + 1);
    WebElement post = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id(anchor)));
    WebElement svg = post.findElement(By.cssSelector("svg.timeline"));
    assertThat(svg.findElements(By.cssSelector("g.row"))).hasSize(4);
    for (String phase : new String[] {"writeDo", "readM", "writeDf", "writeM"}) {
      assertThat(svg.findElements(By.cssSelector("rect.bar." + phase))).as(phase).isNotEmpty();
    }
    assertThat(svg.findElements(By.cssSelector("line.crucial-check"))).hasSize(1);
    assertThat(svg.findElements(By.cssSelector("line.completion"))).hasSize(1);
    screenshot(post, "forum-timeline.png");
    // The clouds the signed entry names as holding the value: p0 and the cloud writeDf used.
    java.util.List<String> dataClouds =
        java.util.List.of(post.findElement(By.className("data-clouds")).getText().split(", "));
    assertThat(dataClouds).contains("p0").hasSizeGreaterThanOrEqualTo(2);

    // Heal p1, make p0 lie, read the newest post back: exact bytes, from another cloud the entry
    // names (never p0), fault reported.
    browser.get(app.uri().resolve("/faults").toString());
    browser.findElement(By.id("heal-p1")).click();
    wait.until(ExpectedConditions.elementToBeClickable(By.id("corrupt-p0"))).click();
    wait.until(
        ExpectedConditions.textToBePresentInElementLocated(
            By.cssSelector("tr[data-cloud='p0'] .state"), "corrupt"));
    String topicId = topic.substring(topic.lastIndexOf('/') + 1);
    new org.openqa.selenium.support.ui.Select(browser.findElement(By.id("topic")))
        .selectByValue(topicId);
    browser.findElement(By.id("read")).click();
    WebElement result =
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("read-result")));
    assertThat(result.findElement(By.className("served-by")).getText())
        .isNotEqualTo("p0")
        .isIn(dataClouds);
    assertThat(result.findElement(By.className("sha256")).getText())
        .isEqualTo(result.findElement(By.className("signed-sha256")).getText());
    assertThat(result.findElement(By.className("read-post")).getText())
        .isEqualTo("Timeline: a write while p1 is slow");
    assertThat(browser.findElements(By.cssSelector("tr.event[data-cloud='p0']"))).isNotEmpty();
    screenshot(browser.findElement(By.tagName("body")), "forum-faults.png");

    browser.findElement(By.id("heal-p0")).click();
    wait.until(
        ExpectedConditions.textToBePresentInElementLocated(
            By.cssSelector("tr[data-cloud='p0'] .state"), "correct"));
  }

  /** Saves a screenshot of {@code element} to {@code target/<name>}, for people to look at. */
  private static void screenshot(WebElement element, String name) throws Exception {
    byte[] png = element.getScreenshotAs(org.openqa.selenium.OutputType.BYTES);
    Path out = Path.of("target", name);
    Files.createDirectories(out.getParent());
    Files.write(out, png);
    assertThat(png.length).as("screenshot %s", name).isGreaterThan(1000);
  }

  private static Optional<Path> binary(String env, String... defaults) {
    String override = System.getenv(env);
    Stream<String> candidates =
        override != null && !override.isBlank() ? Stream.of(override) : Stream.of(defaults);
    return candidates
        .map(Path::of)
        .filter(p -> Files.isRegularFile(p) && new File(p.toString()).canExecute())
        .findFirst();
  }
}
