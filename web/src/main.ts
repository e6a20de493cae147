// Entry of the dashboard bundle: styles (uPlot's and the page's) and the app.
import { render } from 'preact'
import { html } from 'htm/preact'
import uplotCss from 'uplot/dist/uPlot.min.css'
import { App } from './app.ts'
import pageCss from './page.css'

const style = document.createElement('style')
style.textContent = `${uplotCss}\n${pageCss}`
document.head.append(style)
render(html`<${App} />`, document.getElementById('app')!)
