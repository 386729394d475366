// Script text both HTML pages share (html_assets.cpp, html_overview_assets.cpp), and the
// compile-time join that puts it into each page's script: the scripts stay constants, so the
// pages are written exactly as before and nothing is assembled at run time.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace msit::html {

// h(tag, text, parent): an element with its text, appended to parent. fmt(v): a cell's number,
// 6 significant digits (exponent form outside [1e-3, 1e5)).
inline constexpr char kScriptHAndFmt[] = R"JS(  function h(tag, text, parent) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function fmt(v) {
    if (v === null || v === undefined) return '';
    if (typeof v !== 'number') return String(v);
    if (v === 0) return '0';
    var a = Math.abs(v);
    return a >= 1e-3 && a < 1e5 ? String(Number(v.toPrecision(6))) : v.toExponential(3);
  }
)JS";

// String literals joined into one null-terminated array at compile time.
template <size_t... N>
consteval std::array<char, (N + ...) - sizeof...(N) + 1> join_literals(const char (&... parts)[N]) {
  std::array<char, (N + ...) - sizeof...(N) + 1> out{};
  size_t at = 0;
  for (std::string_view part : {std::string_view(parts, N - 1)...}) {
    for (char c : part) out[at++] = c;
  }
  return out;
}

}  // namespace msit::html
