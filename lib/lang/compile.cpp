// The front-end driver: -D handling (including tuning lists), preprocessing,
// parsing and IR generation.
#include "lang/compile.h"

#include <cctype>
#include <set>

#include "ir/parser.h"
#include "ir/verifier.h"
#include "lang/irgen.h"
#include "lang/parser.h"
#include "lang/preprocessor.h"

namespace tritonc::lang {

namespace {
std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}
}  // namespace

Define parseDefineOption(const std::string& text) {
  Define d;
  size_t eq = text.find('=');
  d.name = trim(text.substr(0, eq));
  // -DNAME alone defines NAME as 1, as C compilers do.
  d.value = eq == std::string::npos ? "1" : trim(text.substr(eq + 1));
  bool ok = !d.name.empty() && (std::isalpha(static_cast<unsigned char>(d.name[0])) || d.name[0] == '_');
  for (char c : d.name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!ok) throw UserError(SourceLoc{}, "bad -D option '" + text + "': expected NAME or NAME=VALUE");
  return d;
}

std::vector<std::string> defineValues(const Define& d) {
  const std::string& v = d.value;
  if (v.empty() || v[0] != '[') {
    if (!v.empty() && v.back() == ']' && v.find('[') == std::string::npos)
      throw UserError(SourceLoc{}, "bad -D list for '" + d.name + "': missing '['");
    return {v};
  }
  if (v.back() != ']') throw UserError(SourceLoc{}, "bad -D list for '" + d.name + "': missing ']' in '" + v + "'");
  std::vector<std::string> out;
  std::string inner = v.substr(1, v.size() - 2);
  if (trim(inner).empty()) throw UserError(SourceLoc{}, "bad -D list for '" + d.name + "': the list is empty");
  int depth = 0;
  std::string cur;
  for (char c : inner) {
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (depth < 0) throw UserError(SourceLoc{}, "bad -D list for '" + d.name + "': unbalanced brackets");
    if (c == ',' && depth == 0) {
      out.push_back(trim(cur));
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (depth != 0) throw UserError(SourceLoc{}, "bad -D list for '" + d.name + "': unbalanced brackets");
  out.push_back(trim(cur));
  for (auto& item : out)
    if (item.empty()) throw UserError(SourceLoc{}, "bad -D list for '" + d.name + "': empty item in '" + v + "'");
  return out;
}

// Names declared `tunable` in the source (`const tunable int TM = {...}`).
static std::set<std::string> tunableNames(const Tokens& toks) {
  std::set<std::string> names;
  for (size_t i = 0; i + 1 < toks.size(); ++i) {
    if (!toks[i].is("tunable")) continue;
    size_t j = i + 1;
    while (j < toks.size() && toks[j].kind == TokKind::Ident && (scalarTypeKeyword(toks[j].text) || toks[j].is("const")))
      ++j;
    if (j < toks.size() && toks[j].kind == TokKind::Ident) names.insert(toks[j].text);
  }
  return names;
}

TranslationUnit parseSource(const std::string& source, const CompileOptions& opts,
                            std::vector<TuningParam>* tuning,
                            std::map<std::string, std::vector<std::string>>* tunableOverrides) {
  Tokens toks = lex(source);
  std::set<std::string> tunables = tunableNames(toks);
  std::map<std::string, std::string> defines;
  for (const Define& d : opts.defines) {
    std::vector<std::string> values = defineValues(d);
    if (tunables.count(d.name)) {
      if (tunableOverrides) (*tunableOverrides)[d.name] = values;
      continue;
    }
    if (values.size() > 1 && tuning) {
      TuningParam tp;
      tp.name = d.name;
      tp.values = values;
      tuning->push_back(tp);
    }
    defines[d.name] = values[0];
  }
  return parse(preprocess(toks, defines));
}

CompileResult compileSource(const std::string& source, const CompileOptions& opts) {
  CompileResult r;
  if (opts.language == Language::TritonIr) {
    r.module = ir::parseModule(source);
    std::string problems = ir::verifyModule(*r.module);
    if (!problems.empty()) throw UserError(SourceLoc{}, "invalid Triton-IR:\n" + problems);
    if (r.module->sourceFile.empty()) r.module->sourceFile = opts.filename;
    return r;
  }
  std::map<std::string, std::vector<std::string>> overrides;
  TranslationUnit tu = parseSource(source, opts, &r.tuning, &overrides);
  for (const TuningParam& tp : r.tuning) {
    std::string list;
    for (auto& v : tp.values) list += (list.empty() ? "" : ", ") + v;
    r.notes.push_back("-D" + tp.name + " is a tuning list [" + list +
                      "]; this compile uses " + tp.values[0] + " (a tuned launch or `tritonc tune` tries each)");
  }
  r.module = std::make_unique<ir::Module>();
  r.module->sourceFile = opts.filename;
  r.module->sourceText = source;
  IRGen gen(*r.module, r.tuning, r.notes, r.warnings);
  gen.setTunableOverrides(std::move(overrides));
  gen.translationUnit(tu);
  return r;
}

}  // namespace tritonc::lang
