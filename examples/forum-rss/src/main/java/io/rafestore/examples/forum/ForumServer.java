package io.rafestore.examples.forum;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.rafestore.RafeStoreException;
import io.rafestore.WriteReceipt;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The forum's HTTP front end on the JDK's built-in {@link HttpServer}, bound to 127.0.0.1 only.
 *
 * <p>Routes:
 *
 * <ul>
 *   <li>{@code GET /}: the topic list and a new-topic form;
 *   <li>{@code POST /topics}: creates a topic (fields title, author, body), then 303 to it;
 *   <li>{@code GET /topics/{id}}: the posts, oldest first, each with its status panel;
 *   <li>{@code POST /topics/{id}/posts}: adds a post (fields author, body), then 303 to it;
 *   <li>{@code GET /topics/{id}/rss}: the topic's RSS 2.0 feed;
 *   <li>{@code GET /health}: 200 when the store answers a metadata read, else 503;
 *   <li>{@code GET /faults}: each cloud's state, switches to make one faulty, the faults the store
 *       reported (embedded store only; 404 otherwise);
 *   <li>{@code POST /faults}: switches a cloud (fields cloud, action, delay_ms for slow), then 303
 *       to {@code /faults}; a second faulty cloud is refused with 409;
 *   <li>{@code POST /faults/read}: reads the newest post of a topic (field topic) with no cache and
 *       shows its hash and the cloud that served it.
 * </ul>
 *
 * Bad input is answered 400 with a message naming the field; an unknown path or topic 404; a wrong
 * method 405 with {@code Allow}; a body that is not a form 415, one over {@value #MAX_BODY_BYTES}
 * bytes 413; a store that cannot complete 503.
 *
 * <p><b>Threads.</b> Requests run on a bounded pool ({@value #THREADS} threads, {@value #QUEUE}
 * queued). When both are full the server's dispatcher thread runs the request itself, which stops
 * it accepting more until one finishes: back-pressure instead of an unbounded queue. Thread-safe.
 */
final class ForumServer implements AutoCloseable {
  static final int MAX_BODY_BYTES = 64 * 1024;
  static final int MAX_POSTS_SHOWN = 500;
  private static final int THREADS = 8;
  private static final int QUEUE = 64;
  private static final System.Logger LOG = System.getLogger(ForumServer.class.getName());

  static final long MAX_DELAY_MS = 10_000;

  private final Forum forum;
  private final Optional<FaultControl> faults;
  private final String storeDescription;
  private final HttpServer server;
  private final ThreadPoolExecutor executor;
  private final URI base;

  private ForumServer(
      Forum forum,
      Optional<FaultControl> faults,
      String storeDescription,
      HttpServer server,
      ThreadPoolExecutor e) {
    this.forum = forum;
    this.faults = faults;
    this.storeDescription = storeDescription;
    this.server = server;
    this.executor = e;
    this.base = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
  }

  /**
   * Starts serving {@code forum} on 127.0.0.1:{@code port} (0 picks a free port).
   *
   * @throws IOException if the port cannot be bound
   */
  static ForumServer start(Forum forum, String storeDescription, int port) throws IOException {
    return start(forum, storeDescription, port, Optional.empty());
  }

  /**
   * Starts serving {@code forum}, with the {@code /faults} page if {@code faults} is present.
   *
   * @throws IOException if the port cannot be bound
   */
  static ForumServer start(
      Forum forum, String storeDescription, int port, Optional<FaultControl> faults)
      throws IOException {
    Objects.requireNonNull(forum, "forum");
    Objects.requireNonNull(faults, "faults");
    Objects.requireNonNull(storeDescription, "storeDescription");
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be 0 to 65535, was " + port);
    }
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
    AtomicInteger n = new AtomicInteger();
    ThreadPoolExecutor executor =
        new ThreadPoolExecutor(
            THREADS,
            THREADS,
            30,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(QUEUE),
            r -> {
              Thread t = new Thread(r, "forum-http-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            },
            new ThreadPoolExecutor.CallerRunsPolicy());
    executor.allowCoreThreadTimeOut(true);
    ForumServer fs = new ForumServer(forum, faults, storeDescription, server, executor);
    server.createContext("/", fs::handle);
    server.setExecutor(executor);
    server.start();
    return fs;
  }

  /** The address of the topic list, e.g. {@code http://127.0.0.1:8080/}. */
  URI baseUri() {
    return base;
  }

  /** Stops accepting requests, waits up to one second for running ones, stops the threads. */
  @Override
  public void close() {
    server.stop(1);
    executor.shutdownNow();
  }

  /** A response decided before it is sent. */
  private record Response(int status, String contentType, byte[] body, Optional<String> location) {
    static Response html(int status, String html) {
      return new Response(
          status,
          "text/html; charset=utf-8",
          html.getBytes(StandardCharsets.UTF_8),
          Optional.empty());
    }

    static Response text(int status, String text) {
      return new Response(
          status,
          "text/plain; charset=utf-8",
          text.getBytes(StandardCharsets.UTF_8),
          Optional.empty());
    }

    static Response seeOther(String location) {
      return new Response(
          303,
          "text/plain; charset=utf-8",
          ("See " + location + "\n").getBytes(StandardCharsets.UTF_8),
          Optional.of(location));
    }
  }

  /** A failure answered with a status and a message (shown escaped). */
  private static final class HttpError extends Exception {
    private static final long serialVersionUID = 1L;
    final int status;
    final String allow;

    HttpError(int status, String message) {
      this(status, message, null);
    }

    HttpError(int status, String message, String allow) {
      super(message);
      this.status = status;
      this.allow = allow;
    }
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      Response response;
      String allow = null;
      try {
        response = route(exchange);
      } catch (BadRequest e) {
        response = error(400, e.getMessage());
      } catch (HttpError e) {
        response = error(e.status, e.getMessage());
        allow = e.allow;
      } catch (InterruptedIOException e) {
        response = error(503, "the server is shutting down");
      } catch (RafeStoreException e) {
        response = error(503, "the store could not complete the request: " + e.getMessage());
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.ERROR, "request failed: " + exchange.getRequestURI(), e);
        response = error(500, "internal error (logged on the server)");
      }
      send(exchange, response, allow);
    }
  }

  private Response route(HttpExchange exchange)
      throws IOException, BadRequest, HttpError, RafeStoreException {
    String method = exchange.getRequestMethod();
    String path = exchange.getRequestURI().getRawPath();
    if (path == null || path.isEmpty()) {
      path = "/";
    }
    if (path.equals("/")) {
      requireMethod(method, "GET");
      return Response.html(200, Pages.topicList(forum.topics(), storeDescription));
    }
    if (path.equals("/health")) {
      requireMethod(method, "GET");
      forum.check();
      return Response.text(200, "ok\n");
    }
    if (path.equals("/topics")) {
      requireMethod(method, "POST");
      Form form = readForm(exchange);
      String title;
      Post first;
      try {
        title = Fields.title(form.get("title"));
        first = Post.of(form.get("author"), form.get("body"));
      } catch (BadRequest e) {
        return Response.html(
            400,
            Pages.topicList(
                forum.topics(), storeDescription, draft(form, e, "title", "author", "body")));
      }
      TopicEntry topic = forum.createTopic(title, first);
      return Response.seeOther("/topics/" + topic.id());
    }
    if (path.equals("/faults") || path.equals("/faults/read")) {
      return faultsRoute(exchange, method, path);
    }
    if (!path.startsWith("/topics/")) {
      throw new HttpError(404, "no page at " + abbreviate(path));
    }
    String[] parts = path.substring("/topics/".length()).split("/", -1);
    if (parts.length > 2) {
      throw new HttpError(404, "no page at " + abbreviate(path));
    }
    String id = Fields.topicId(parts[0]);
    if (parts.length == 1) {
      requireMethod(method, "GET");
      Forum.TopicView view = topicView(id);
      return Response.html(
          200, Pages.topic(view, forum.clouds(), MAX_POSTS_SHOWN, storeDescription));
    }
    switch (parts[1]) {
      case "posts" -> {
        requireMethod(method, "POST");
        TopicEntry topic =
            forum.topic(id).orElseThrow(() -> new HttpError(404, "no topic '" + id + "'"));
        Form form = readForm(exchange);
        Post post;
        try {
          post = Post.of(form.get("author"), form.get("body"));
        } catch (BadRequest e) {
          return Response.html(
              400,
              Pages.topic(
                  topicView(id),
                  forum.clouds(),
                  MAX_POSTS_SHOWN,
                  storeDescription,
                  draft(form, e, "author", "body")));
        }
        WriteReceipt r = forum.post(topic, post);
        return Response.seeOther("/topics/" + id + "#" + Pages.anchor(r.version()));
      }
      case "rss" -> {
        requireMethod(method, "GET");
        Forum.TopicView view = topicView(id);
        String xml = Feeds.rss(view, base, forum.clouds().size(), forum.faultsTolerated());
        return new Response(
            200,
            "application/rss+xml; charset=utf-8",
            xml.getBytes(StandardCharsets.UTF_8),
            Optional.empty());
      }
      default -> throw new HttpError(404, "no page at " + abbreviate(path));
    }
  }

  private Response faultsRoute(HttpExchange exchange, String method, String path)
      throws IOException, BadRequest, HttpError, RafeStoreException {
    FaultControl control =
        faults.orElseThrow(
            () ->
                new HttpError(
                    404,
                    "the faults page needs the embedded store (scripts/demo.sh without --config)"));
    if (path.equals("/faults")) {
      if (method.equals("POST")) {
        Form form = readForm(exchange);
        try {
          String cloud = required(form, "cloud");
          FaultControl.Action action = action(required(form, "action"));
          Duration delay = Duration.ZERO;
          if (action == FaultControl.Action.SLOW) {
            delay = Duration.ofMillis(delayMs(required(form, "delay_ms")));
          }
          control.apply(cloud, action, delay);
        } catch (BadRequest e) {
          return Response.html(400, Pages.faults(control, forum.topics(), e.getMessage(), null));
        } catch (FaultControl.Refused e) {
          return Response.html(409, Pages.faults(control, forum.topics(), e.getMessage(), null));
        }
        return Response.seeOther("/faults");
      }
      requireMethod(method, "GET");
      return Response.html(200, Pages.faults(control, forum.topics(), "", null));
    }
    requireMethod(method, "POST");
    Form form = readForm(exchange);
    String id;
    try {
      id = Fields.topicId(required(form, "topic"));
    } catch (BadRequest e) {
      return Response.html(400, Pages.faults(control, forum.topics(), e.getMessage(), null));
    }
    Optional<Forum.ReadBack> read = forum.readNewest(id);
    if (read.isEmpty()) {
      return Response.html(
          404,
          Pages.faults(control, forum.topics(), "no topic '" + id + "' with a post to read", null));
    }
    return Response.html(200, Pages.faults(control, forum.topics(), "", read.get()));
  }

  private static String required(Form form, String field) throws BadRequest {
    String v =
        form.get(field).orElseThrow(() -> new BadRequest("field '" + field + "' is missing"));
    if (v.isBlank()) {
      throw new BadRequest("field '" + field + "' is empty");
    }
    return v.strip();
  }

  private static FaultControl.Action action(String value) throws BadRequest {
    for (FaultControl.Action a : FaultControl.Action.values()) {
      if (a.field().equals(value)) {
        return a;
      }
    }
    throw new BadRequest(
        "field 'action' must be one of crash, slow, corrupt, stale, heal; was '"
            + abbreviate(value)
            + "'");
  }

  private static long delayMs(String value) throws BadRequest {
    long ms;
    try {
      ms = Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new BadRequest("field 'delay_ms' must be a whole number of milliseconds");
    }
    if (ms < 1 || ms > MAX_DELAY_MS) {
      throw new BadRequest("field 'delay_ms' must be 1 to " + MAX_DELAY_MS + ", was " + ms);
    }
    return ms;
  }

  private Forum.TopicView topicView(String id)
      throws HttpError, RafeStoreException, InterruptedIOException {
    return forum
        .topicView(id, MAX_POSTS_SHOWN)
        .orElseThrow(() -> new HttpError(404, "no topic '" + id + "'"));
  }

  /** The refused form's values, to show again with the reason (a visitor keeps their text). */
  private static Pages.Draft draft(Form form, BadRequest e, String... fields) {
    java.util.Map<String, String> values = new java.util.HashMap<>();
    for (String f : fields) {
      form.get(f).ifPresent(v -> values.put(f, v));
    }
    return new Pages.Draft(values, e.getMessage());
  }

  private static void requireMethod(String method, String allowed) throws HttpError {
    boolean ok = method.equals(allowed) || (allowed.equals("GET") && method.equals("HEAD"));
    if (!ok) {
      String allow = allowed.equals("GET") ? "GET, HEAD" : allowed;
      throw new HttpError(
          405, "method " + abbreviate(method) + " is not allowed here; use " + allow, allow);
    }
  }

  /** Reads and parses a form body, checking its content type and size. */
  private static Form readForm(HttpExchange exchange) throws IOException, BadRequest, HttpError {
    String type = exchange.getRequestHeaders().getFirst("Content-Type");
    if (type == null) {
      throw new HttpError(
          415, "the request has no Content-Type; send application/x-www-form-urlencoded");
    }
    String[] params = type.split(";");
    if (!params[0].strip().equalsIgnoreCase("application/x-www-form-urlencoded")) {
      throw new HttpError(
          415,
          "Content-Type "
              + abbreviate(params[0].strip())
              + " is not supported; send application/x-www-form-urlencoded");
    }
    for (int i = 1; i < params.length; i++) {
      String p = params[i].strip().toLowerCase(Locale.ROOT);
      if (p.startsWith("charset=")) {
        String cs = p.substring("charset=".length()).replace("\"", "");
        if (!cs.equals("utf-8")) {
          throw new HttpError(
              415, "form charset " + abbreviate(cs) + " is not supported; send UTF-8");
        }
      }
    }
    byte[] body;
    try (InputStream in = exchange.getRequestBody()) {
      body = in.readNBytes(MAX_BODY_BYTES + 1);
    }
    if (body.length > MAX_BODY_BYTES) {
      throw new HttpError(413, "the form is larger than " + MAX_BODY_BYTES + " bytes");
    }
    return Form.parse(body);
  }

  private static Response error(int status, String message) {
    return Response.html(status, Pages.error(status, reason(status), message));
  }

  private static String reason(int status) {
    return switch (status) {
      case 400 -> "Bad Request";
      case 404 -> "Not Found";
      case 405 -> "Method Not Allowed";
      case 409 -> "Conflict";
      case 413 -> "Payload Too Large";
      case 415 -> "Unsupported Media Type";
      case 503 -> "Service Unavailable";
      default -> "Internal Server Error";
    };
  }

  private static void send(HttpExchange exchange, Response r, String allow) throws IOException {
    Headers h = exchange.getResponseHeaders();
    h.set("Content-Type", r.contentType());
    h.set("Cache-Control", "no-store");
    h.set("X-Content-Type-Options", "nosniff");
    h.set("Referrer-Policy", "no-referrer");
    // No script runs on these pages at all: even markup that escaped escaping could not execute.
    h.set(
        "Content-Security-Policy",
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none';"
            + " frame-ancestors 'none'");
    r.location().ifPresent(l -> h.set("Location", l));
    if (allow != null) {
      h.set("Allow", allow);
    }
    boolean head = exchange.getRequestMethod().equals("HEAD");
    exchange.sendResponseHeaders(r.status(), head ? -1 : r.body().length);
    if (!head) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(r.body());
      }
    }
  }

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 80) + "...";
  }
}
