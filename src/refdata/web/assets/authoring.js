(() => {
  var SVG_NS = 'http://www.w3.org/2000/svg';
  var counter = 0;

  function pickers() {
    document.querySelectorAll('.picker').forEach((field) => {
      var input = /** @type {HTMLInputElement | null} */ (field.querySelector('input[type=text]'));
      var hidden = /** @type {HTMLInputElement | null} */ (
        field.querySelector('input[type=hidden]')
      );
      if (!input || !hidden || input.readOnly) return;
      var families = field.getAttribute('data-families');
      var picked = /** @type {HTMLElement | null} */ (field.querySelector('.picked'));
      counter += 1;
      var list = document.createElement('ul');
      list.id = `suggestions-${counter}`;
      list.className = 'suggestions';
      list.setAttribute('role', 'listbox');
      list.setAttribute('aria-label', 'Suggestions');
      list.hidden = true;
      var status = document.createElement('span');
      status.className = 'visually-hidden';
      status.setAttribute('role', 'status');
      input.after(list, status);
      input.setAttribute('role', 'combobox');
      input.setAttribute('aria-autocomplete', 'list');
      input.setAttribute('aria-expanded', 'false');
      input.setAttribute('aria-controls', list.id);
      var results = [];
      var active = -1;
      var timer;
      var asked = 0;

      function close() {
        list.hidden = true;
        input.setAttribute('aria-expanded', 'false');
        input.removeAttribute('aria-activedescendant');
        active = -1;
      }
      function highlight(index) {
        active = index;
        Array.prototype.forEach.call(list.children, (item, position) => {
          item.setAttribute('aria-selected', position === index ? 'true' : 'false');
        });
        if (index >= 0) {
          input.setAttribute('aria-activedescendant', `${list.id}-${index}`);
          list.children[index].scrollIntoView({ block: 'nearest' });
        } else input.removeAttribute('aria-activedescendant');
      }
      function choose(index) {
        var result = results[index];
        if (!result) return;
        hidden.value = result.iri;
        input.value = result.name;
        if (picked) {
          picked.hidden = false;
          picked.textContent =
            result.name +
            ': ' +
            result.familyLabel +
            (result.library ? ` in ${result.library}` : '') +
            ', ' +
            result.status;
        }
        close();
        status.textContent = `${result.name} chosen`;
      }
      function show(found) {
        results = found;
        list.textContent = '';
        found.forEach((result, index) => {
          var item = document.createElement('li');
          item.id = `${list.id}-${index}`;
          item.setAttribute('role', 'option');
          item.setAttribute('aria-selected', 'false');
          item.textContent =
            result.name +
            ' (' +
            result.familyLabel +
            (result.library ? `, ${result.library}` : '') +
            ', ' +
            result.status +
            ')';
          item.addEventListener('mousedown', (event) => {
            event.preventDefault();
            choose(index);
          });
          list.appendChild(item);
        });
        list.hidden = found.length === 0;
        input.setAttribute('aria-expanded', found.length > 0 ? 'true' : 'false');
        status.textContent = found.length === 0 ? 'No suggestions' : `${found.length} suggestions`;
        active = -1;
      }
      input.addEventListener('input', () => {
        clearTimeout(timer);
        var text = input.value.trim();
        if (text === '' || /^[a-z][a-z0-9+.-]*:/i.test(text)) {
          close();
          return;
        }
        timer = setTimeout(() => {
          var ask = ++asked;
          fetch(`/authoring/pick?${new URLSearchParams({ families: families, q: text })}`, {
            headers: { accept: 'application/json' },
            credentials: 'same-origin',
          })
            .then((response) => (response.ok ? response.json() : { results: [] }))
            .then((body) => {
              if (ask === asked) show(body.results || []);
            })
            .catch(() => {
              close();
            });
        }, 200);
      });
      input.addEventListener('keydown', (event) => {
        if (list.hidden) return;
        if (event.key === 'ArrowDown') {
          event.preventDefault();
          highlight(Math.min(active + 1, results.length - 1));
        } else if (event.key === 'ArrowUp') {
          event.preventDefault();
          highlight(Math.max(active - 1, 0));
        } else if (event.key === 'Enter' && active >= 0) {
          event.preventDefault();
          choose(active);
        } else if (event.key === 'Escape') {
          event.preventDefault();
          close();
        }
      });
      input.addEventListener('blur', () => {
        setTimeout(close, 150);
      });
    });
  }

  function drawings() {
    document.querySelectorAll('[data-drawing]').forEach((field) => {
      var form = field.closest('form');
      var text = field.querySelector('textarea');
      var preview = field.querySelector('.drawing-preview [role=img]');
      if (!form || !text || !preview) return;
      function control(name) {
        return /** @type {HTMLInputElement | null} */ (form.elements.namedItem(name));
      }
      function number(name) {
        var element = control(name);
        if (!element || element.value.trim() === '') return undefined;
        var value = Number(element.value);
        return Number.isFinite(value) ? value : undefined;
      }
      function pointRows() {
        var rows = [];
        for (let index = 0; index < 200; index += 1) {
          if (!control(`/connectionPoints/${index}/x`)) break;
          rows.push(index);
        }
        return rows;
      }
      function pathsOf(source) {
        var trimmed = source.trim();
        if (trimmed === '') return [];
        if (trimmed.charAt(0) !== '<') return [trimmed];
        var parsed = new DOMParser().parseFromString(trimmed, 'image/svg+xml');
        if (parsed.getElementsByTagName('parsererror').length > 0) return [];
        return Array.prototype.map.call(
          parsed.getElementsByTagNameNS(SVG_NS, 'path'),
          (path) => path.getAttribute('d') || '',
        );
      }
      function element(name, attributes) {
        var node = document.createElementNS(SVG_NS, name);
        Object.keys(attributes).forEach((key) => {
          node.setAttribute(key, String(attributes[key]));
        });
        return node;
      }
      /** @type {SVGSVGElement | undefined} */
      var svg;
      function redraw() {
        var width = number('/width');
        var height = number('/height');
        var paths = pathsOf(text.value);
        if (!width || !height || width <= 0 || height <= 0 || paths.length === 0) return;
        var unit = Math.max(1, Math.min(width, height) / 24);
        var margin = unit * 3;
        svg = /** @type {SVGSVGElement} */ (
          element('svg', {
            viewBox: [-margin, -margin, width + 2 * margin, height + 2 * margin].join(' '),
            width: (width + 2 * margin) * 4,
            height: (height + 2 * margin) * 4,
          })
        );
        svg.style.cursor = 'crosshair';
        svg.appendChild(
          element('rect', {
            x: 0,
            y: 0,
            width: width,
            height: height,
            fill: 'none',
            stroke: '#bbb',
            'stroke-width': unit / 6,
            'stroke-dasharray': `${unit} ${unit}`,
          }),
        );
        paths.forEach((d) => {
          svg.appendChild(
            element('path', { d: d, fill: 'none', stroke: '#000', 'stroke-width': unit / 2 }),
          );
        });
        pointRows().forEach((index) => {
          var x = number(`/connectionPoints/${index}/x`);
          var y = number(`/connectionPoints/${index}/y`);
          if (x === undefined || y === undefined) return;
          var radians = ((number(`/connectionPoints/${index}/direction`) || 0) * Math.PI) / 180;
          svg.appendChild(element('circle', { cx: x, cy: y, r: unit, fill: '#d00' }));
          svg.appendChild(
            element('line', {
              x1: x,
              y1: y,
              x2: x + Math.cos(radians) * unit * 2,
              y2: y - Math.sin(radians) * unit * 2,
              stroke: '#d00',
              'stroke-width': unit / 3,
            }),
          );
        });
        var cx = number('/centerOfRotation/x');
        var cy = number('/centerOfRotation/y');
        if (cx !== undefined && cy !== undefined) {
          svg.appendChild(
            element('line', {
              x1: cx - unit,
              y1: cy,
              x2: cx + unit,
              y2: cy,
              stroke: '#06c',
              'stroke-width': unit / 3,
            }),
          );
          svg.appendChild(
            element('line', {
              x1: cx,
              y1: cy - unit,
              x2: cx,
              y2: cy + unit,
              stroke: '#06c',
              'stroke-width': unit / 3,
            }),
          );
        }
        preview.textContent = '';
        preview.appendChild(svg);
        svg.addEventListener('click', place);
        refreshTargets();
      }

      var chooser = document.createElement('p');
      var label = document.createElement('label');
      label.className = 'inline';
      counter += 1;
      label.htmlFor = `drawing-target-${counter}`;
      label.textContent = 'A click on the drawing sets ';
      var target = document.createElement('select');
      target.id = label.htmlFor;
      chooser.append(label, target);
      field.querySelector('.drawing-preview').before(chooser);
      function refreshTargets() {
        var chosen = target.value;
        target.textContent = '';
        var centre = document.createElement('option');
        centre.value = 'centre';
        centre.textContent = 'the centre of rotation';
        target.appendChild(centre);
        pointRows().forEach((index) => {
          var option = document.createElement('option');
          option.value = String(index);
          var id = control(`/connectionPoints/${index}/id`);
          option.textContent = `connection point ${index + 1}${id?.value ? ` (${id.value})` : ''}`;
          target.appendChild(option);
        });
        if (chosen) target.value = chosen;
        if (!target.value) target.value = 'centre';
      }
      function place(event) {
        var matrix = svg.getScreenCTM();
        if (!matrix) return;
        var point = svg.createSVGPoint();
        point.x = event.clientX;
        point.y = event.clientY;
        var at = point.matrixTransform(matrix.inverse());
        var round = (value) => String(Math.round(value * 2) / 2);
        var prefix =
          target.value === 'centre' ? '/centerOfRotation' : `/connectionPoints/${target.value}`;
        var x = control(`${prefix}/x`);
        var y = control(`${prefix}/y`);
        if (!x || !y) return;
        x.value = round(at.x);
        y.value = round(at.y);
        redraw();
      }

      var file = document.createElement('input');
      file.type = 'file';
      file.accept = '.svg,image/svg+xml';
      counter += 1;
      file.id = `drawing-file-${counter}`;
      var fileLabel = document.createElement('label');
      fileLabel.htmlFor = file.id;
      fileLabel.textContent = 'Or take the SVG from a file';
      text.after(fileLabel, file);
      file.addEventListener('change', () => {
        var chosen = file.files?.[0];
        if (!chosen) return;
        chosen.text().then((content) => {
          text.value = content;
          var parsed = new DOMParser().parseFromString(content, 'image/svg+xml');
          var root = parsed.documentElement;
          var box = (root?.getAttribute('viewBox') || '')
            .trim()
            .split(/[\s,]+/)
            .map(Number);
          if (box.length === 4 && box.every(Number.isFinite)) {
            ['/width', '/height'].forEach((name, index) => {
              var element = control(name);
              if (element && element.value.trim() === '') element.value = String(box[index + 2]);
            });
          }
          redraw();
        });
      });

      form.addEventListener('input', (event) => {
        var name = /** @type {HTMLInputElement | null} */ (event.target)?.name;
        if (
          event.target === text ||
          /^\/(width|height|centerOfRotation|connectionPoints)/.test(name || '')
        )
          redraw();
      });
      redraw();
      refreshTargets();
    });
  }

  pickers();
  drawings();
})();
