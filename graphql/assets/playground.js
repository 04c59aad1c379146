// dohyo GraphQL playground: GraphiQL (vendored, see README.md) pointed at
// /graphql-schema or /graphql/{keyspace}, with the X-Cassandra-Token header
// (typed in, or fetched by "Sign in" from POST /v1/auth).
// Everything is served by dohyo itself: no network access beyond it.
(function () {
  'use strict';

  var base = window.location.pathname.replace(/\/playground\/?$/, '');
  var select = document.getElementById('endpoint');
  var tokenInput = document.getElementById('token');
  var reloadButton = document.getElementById('reload');
  var statusEl = document.getElementById('status');
  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  var keyspaces = []; // [{name, tables: [{name, columns: [{name}]}]}]
  var params = new URLSearchParams(window.location.search);
  var wanted = params.get('endpoint');

  tokenInput.value = sessionStorage.getItem('dohyo.token') || '';

  function setStatus(msg, ok) {
    statusEl.textContent = msg || '';
    statusEl.className = ok ? 'ok' : '';
  }

  function headers() {
    var h = { 'Content-Type': 'application/json', 'Accept': 'application/json' };
    if (tokenInput.value) {
      h['X-Cassandra-Token'] = tokenInput.value;
    }
    return h;
  }

  function post(path, body) {
    return fetch(base + path, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify(body),
      credentials: 'same-origin'
    }).then(function (res) {
      return res.json().then(function (json) {
        if (res.status === 401) {
          setStatus('Unauthorized: sign in, or set a valid X-Cassandra-Token');
        } else if (!res.ok) {
          setStatus('HTTP ' + res.status);
        }
        return json;
      });
    });
  }

  // GraphiQL keeps its tabs in storage; one namespace per endpoint keeps
  // each endpoint's queries apart.
  function storageFor(path) {
    var prefix = 'dohyo:' + path + ':';
    return {
      getItem: function (k) { return localStorage.getItem(prefix + k); },
      setItem: function (k, v) { localStorage.setItem(prefix + k, v); },
      removeItem: function (k) { localStorage.removeItem(prefix + k); },
      clear: function () {
        Object.keys(localStorage).forEach(function (k) {
          if (k.indexOf(prefix) === 0) { localStorage.removeItem(k); }
        });
      },
      get length() {
        return Object.keys(localStorage).filter(function (k) { return k.indexOf(prefix) === 0; }).length;
      }
    };
  }

  var plain = /^[A-Za-z][A-Za-z0-9_]*$/;
  function simpleName(n) {
    return plain.test(n) && !/x[0-9a-f]+_/.test(n) && !/(Input|Result|Order|Udt)$/.test(n) &&
      !/^(Entry|Tuple)/.test(n);
  }

  function defaultQuery(path) {
    if (path === '/graphql-schema') {
      return '# /graphql-schema describes and changes keyspaces and tables.\n' +
        'query {\n  keyspaces {\n    name\n    tables {\n      name\n' +
        '      columns { name kind type { basic info { name subTypes { basic } } } }\n    }\n  }\n}\n';
    }
    var ksName = path.replace(/^\/graphql\//, '');
    var ks = keyspaces.filter(function (k) { return k.name === ksName; })[0];
    var header = '# ' + path + ': one query field and insert/update/delete/bulkInsert\n' +
      '# mutations per table of keyspace ' + ksName + '. Open the docs for the schema.\n';
    var table = ks && (ks.tables || []).filter(function (t) {
      return simpleName(t.name) && t.columns.every(function (c) { return simpleName(c.name); });
    })[0];
    if (!table) {
      return header + 'query {\n  conversionWarnings\n}\n';
    }
    var cols = table.columns.map(function (c) { return c.name; }).join(' ');
    return header + 'query {\n  ' + table.name + '(options: { pageSize: 10 }) {\n    values { ' + cols +
      ' }\n    pageState\n  }\n}\n';
  }

  function render() {
    var path = select.value;
    var fetcher = function (graphQLParams) {
      return post(path, graphQLParams);
    };
    root.render(React.createElement(GraphiQL, {
      key: path + '|' + tokenInput.value,
      fetcher: fetcher,
      defaultQuery: defaultQuery(path),
      storage: storageFor(path),
      defaultEditorToolsVisibility: true,
      isHeadersEditorEnabled: false
    }));
  }

  function fillEndpoints() {
    var current = wanted || select.value;
    while (select.options.length > 1) {
      select.remove(1);
    }
    keyspaces.forEach(function (ks) {
      var opt = document.createElement('option');
      opt.value = '/graphql/' + ks.name;
      opt.textContent = '/graphql/' + ks.name;
      select.appendChild(opt);
    });
    select.value = current;
    if (select.value !== current) {
      select.value = '/graphql-schema';
    }
    wanted = null;
  }

  function loadKeyspaces() {
    setStatus('');
    return post('/graphql-schema', { query: '{ keyspaces { name tables { name columns { name } } } }' })
      .then(function (res) {
        if (res && res.data && res.data.keyspaces) {
          keyspaces = res.data.keyspaces;
          setStatus(keyspaces.length + ' keyspace(s)', true);
        } else if (res && res.errors && !statusEl.textContent) {
          setStatus(res.errors[0].message);
        }
      })
      .catch(function (err) { setStatus('Cannot reach dohyo: ' + err); })
      .then(function () {
        fillEndpoints();
        render();
        document.body.setAttribute('data-ready', 'true');
      });
  }

  function setToken(token) {
    tokenInput.value = token;
    sessionStorage.setItem('dohyo.token', token);
    loadKeyspaces();
  }

  // Stargate's token flow: POST /v1/auth {username, password} -> {authToken}.
  document.getElementById('login').addEventListener('submit', function (ev) {
    ev.preventDefault();
    var password = document.getElementById('password');
    fetch(base + '/v1/auth', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Accept': 'application/json' },
      body: JSON.stringify({ username: document.getElementById('user').value, password: password.value }),
      credentials: 'same-origin'
    }).then(function (res) {
      return res.json().then(function (json) {
        password.value = '';
        if (res.status === 201 && json.authToken) {
          setToken(json.authToken);
        } else {
          setStatus('Sign in failed: ' + (json.description || ('HTTP ' + res.status)));
        }
      });
    }).catch(function (err) { setStatus('Cannot reach dohyo: ' + err); });
  });

  select.addEventListener('change', render);
  tokenInput.addEventListener('change', function () { setToken(tokenInput.value); });
  reloadButton.addEventListener('click', loadKeyspaces);
  loadKeyspaces();
})();
