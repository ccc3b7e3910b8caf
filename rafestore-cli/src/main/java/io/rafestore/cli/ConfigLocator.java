package io.rafestore.cli;

import io.rafestore.config.ConfigException;
import io.rafestore.config.StoreConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds the configuration file and applies the environment's overrides of single settings. The
 * environment is a map handed in (the process's in {@link Main#main}, a test's own otherwise), so
 * nothing here reads {@code System.getenv}.
 *
 * <p>The file, first match wins: {@code --config FILE}; {@code $RAFESTORE_CONFIG}; {@code
 * ./rafestore.properties} if it exists; {@code $XDG_CONFIG_HOME/rafestore/rafestore.properties}
 * ({@code $HOME/.config} when {@code XDG_CONFIG_HOME} is unset or empty) if it exists.
 *
 * <p>Overrides: {@code RAFESTORE_<NAME>} replaces the top-level setting whose name, in upper snake
 * case, is {@code NAME} ({@code RAFESTORE_PART_SIZE} for {@code partSize}, {@code
 * RAFESTORE_WRITER_KEY} for {@code writer.key}); see {@link #OVERRIDABLE}. Cloud settings are not
 * overridable: a cloud id may hold {@code -} and mixed case, which a variable name cannot carry
 * unambiguously. Other {@code RAFESTORE_*} variables (such as credentials that a cloud's {@code
 * credentials = env:NAME} names) are left alone. Stateless; thread-safe.
 */
final class ConfigLocator {
  /** The environment variable naming the configuration file. */
  static final String CONFIG_ENV = "RAFESTORE_CONFIG";

  /** The file name looked for in the working directory and the XDG configuration directory. */
  static final String FILE_NAME = "rafestore.properties";

  /** The top-level settings an environment variable may override. */
  static final List<String> OVERRIDABLE =
      List.of(
          "f",
          "mode",
          "writer.id",
          "writer.key",
          "writer.certificate",
          "trustRefresh",
          "writerDiscovery",
          "operationTimeout",
          "maxValueBytes",
          "dataCloudsInOrderAdded",
          "encryptValues",
          "erasureCoding",
          "partSize",
          "partsInFlight",
          "speculativeReadLimit",
          "layout",
          "objective",
          "inlineThreshold",
          "inlineLogBudget");

  private final Map<String, String> env;
  private final Path workingDirectory;

  ConfigLocator(Map<String, String> env, Path workingDirectory) {
    this.env = env;
    this.workingDirectory = workingDirectory;
  }

  /**
   * The variable that overrides {@code setting}: {@code partSize} -> {@code RAFESTORE_PART_SIZE}.
   */
  static String variableFor(String setting) {
    StringBuilder b = new StringBuilder("RAFESTORE_");
    for (int i = 0; i < setting.length(); i++) {
      char c = setting.charAt(i);
      if (c == '.') {
        b.append('_');
      } else if (Character.isUpperCase(c)) {
        b.append('_').append(c);
      } else {
        b.append(Character.toUpperCase(c));
      }
    }
    return b.toString();
  }

  /** The places looked at when neither --config nor RAFESTORE_CONFIG is given, in order. */
  List<Path> candidates() {
    List<Path> list = new ArrayList<>();
    list.add(workingDirectory.resolve(FILE_NAME));
    String xdg = env.get("XDG_CONFIG_HOME");
    String home = env.get("HOME");
    if (xdg != null && !xdg.isBlank()) {
      list.add(Path.of(xdg, "rafestore", FILE_NAME));
    } else if (home != null && !home.isBlank()) {
      list.add(Path.of(home, ".config", "rafestore", FILE_NAME));
    }
    return list;
  }

  /** The configuration file to use; {@code explicit} is --config's value or null. */
  Path locate(Path explicit) throws UsageException {
    if (explicit != null) {
      return explicit;
    }
    String fromEnv = env.get(CONFIG_ENV);
    if (fromEnv != null && !fromEnv.isBlank()) {
      return Path.of(fromEnv);
    }
    List<Path> candidates = candidates();
    for (Path p : candidates) {
      if (Files.isRegularFile(p)) {
        return p;
      }
    }
    throw new UsageException(
        "no configuration file: give --config FILE, set "
            + CONFIG_ENV
            + ", or create one of "
            + candidates
            + " (docs/cli.md describes the format)");
  }

  /** The overrides the environment holds: setting -> value, in {@link #OVERRIDABLE}'s order. */
  Map<String, String> overrides() {
    Map<String, String> o = new LinkedHashMap<>();
    for (String setting : OVERRIDABLE) {
      String v = env.get(variableFor(setting));
      if (v != null && !v.isBlank()) {
        o.put(setting, v.strip());
      }
    }
    return o;
  }

  /**
   * Loads {@code file} with the environment's overrides: each overridden line of the file is
   * blanked (so line numbers of the rest stay true) and the override is appended; an error in an
   * override names the variable, not a line of the file.
   */
  StoreConfig load(Path file, boolean explicit) throws IOException, UsageException {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new UsageException(
          "configuration file "
              + file
              + " does not exist (named by "
              + (explicit ? "--config" : CONFIG_ENV)
              + "; give --config FILE or set "
              + CONFIG_ENV
              + "; docs/cli.md describes the format)",
          e);
    }
    Map<String, String> overrides = overrides();
    if (overrides.isEmpty()) {
      return StoreConfig.load(file);
    }
    String[] lines = text.split("\r\n|\r|\n", -1);
    StringBuilder b = new StringBuilder();
    for (String line : lines) {
      String s = line.strip();
      int eq = s.indexOf('=');
      boolean overridden =
          !s.startsWith("#")
              && !s.startsWith("!")
              && eq > 0
              && overrides.containsKey(s.substring(0, eq).strip().replace("\uFEFF", ""));
      b.append(overridden ? "" : line).append('\n');
    }
    int firstOverrideLine = lines.length + 1;
    List<String> order = new ArrayList<>(overrides.keySet());
    for (Map.Entry<String, String> e : overrides.entrySet()) {
      b.append(e.getKey()).append(" = ").append(e.getValue()).append('\n');
    }
    Path dir = file.toAbsolutePath().getParent();
    try {
      return StoreConfig.parse(b.toString(), file.toString(), dir == null ? Path.of("") : dir);
    } catch (ConfigException e) {
      int index = e.line() - firstOverrideLine;
      if (index >= 0 && index < order.size()) {
        String setting = order.get(index);
        throw new ConfigException(
            "environment variable " + variableFor(setting), 0, setting, e.problem(), e);
      }
      throw e;
    }
  }
}
