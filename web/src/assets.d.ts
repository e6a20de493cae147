// esbuild loads stylesheets as text (loader `.css: text`); the page injects them in one <style>.
declare module '*.css' {
  const text: string
  export default text
}
