package io.rafestore.bench.paper;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * A properties file read with errors that name the file, the key and what was expected. Package
 * private; not thread-safe.
 */
final class Settings {
  private final String source;
  private final Properties props;

  private Settings(String source, Properties props) {
    this.source = source;
    this.props = props;
  }

  /** Loads {@code location}: a file path if one exists there, else a classpath resource. */
  static Settings load(String location) throws IOException {
    Path path = Path.of(location);
    Properties p = new Properties();
    if (Files.isRegularFile(path)) {
      try (Reader r = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
        p.load(r);
      }
      return new Settings(path.toString(), p);
    }
    String resource = location.startsWith("/") ? location : "/" + location;
    InputStream in = Settings.class.getResourceAsStream(resource);
    if (in == null) {
      throw new IOException(
          "no file or classpath resource named '" + location + "' (looked for " + path + ")");
    }
    try (Reader r = new InputStreamReader(in, StandardCharsets.UTF_8)) {
      p.load(r);
    }
    return new Settings("classpath:" + resource, p);
  }

  String source() {
    return source;
  }

  java.util.Set<String> keys() {
    return props.stringPropertyNames();
  }

  boolean has(String key) {
    return props.getProperty(key) != null;
  }

  String string(String key) {
    String v = props.getProperty(key);
    if (v == null || v.isBlank()) {
      throw error(key, "is missing");
    }
    return v.trim();
  }

  double number(String key, double min, double max) {
    String v = string(key);
    double d;
    try {
      d = Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw error(key, "must be a number, was '" + v + "'");
    }
    if (!(d >= min && d <= max)) {
      throw error(key, "must be in [" + min + ", " + max + "], was " + v);
    }
    return d;
  }

  long positiveLong(String key) {
    String v = string(key);
    long l;
    try {
      l = Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw error(key, "must be a whole number, was '" + v + "'");
    }
    if (l <= 0) {
      throw error(key, "must be > 0, was " + v);
    }
    return l;
  }

  IllegalArgumentException error(String key, String problem) {
    return new IllegalArgumentException(source + ": '" + key + "' " + problem);
  }
}
