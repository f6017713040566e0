/**
 * Light or dark: the system's choice (`prefers-color-scheme`) until the toggle picks one, which is
 * kept in local storage and set as `data-theme` on the page's root (style.css reads both).
 */
import { useState } from "preact/hooks";

type Theme = "auto" | "light" | "dark";

const KEY = "guardgate.theme";
const NEXT: Record<Theme, Theme> = { auto: "dark", dark: "light", light: "auto" };
const LABEL: Record<Theme, string> = { auto: "Theme: system", dark: "Theme: dark", light: "Theme: light" };

function stored(): Theme {
  const value = localStorage.getItem(KEY);
  return value === "light" || value === "dark" ? value : "auto";
}

function apply(theme: Theme): void {
  if (theme === "auto") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
}

// Before the first render, so a chosen theme never flashes the other one.
apply(stored());

/** The button that cycles system → dark → light. */
export function ThemeToggle() {
  const [theme, setTheme] = useState<Theme>(stored);
  return (
    <button
      type="button"
      class="small secondary theme-toggle"
      data-theme-choice={theme}
      title="Switch between the system's theme, dark and light"
      onClick={() => {
        const next = NEXT[theme];
        if (next === "auto") localStorage.removeItem(KEY);
        else localStorage.setItem(KEY, next);
        apply(next);
        setTheme(next);
      }}
    >
      {LABEL[theme]}
    </button>
  );
}
