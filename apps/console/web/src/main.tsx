import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { stackTablesThatDoNotFit } from './lib/stacked-tables';
import './styles/base.css';
import './styles/layout.css';
import './styles/components.css';

const root = document.getElementById('root');
if (!root) throw new Error('#root is missing from index.html');
stackTablesThatDoNotFit(root);
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
