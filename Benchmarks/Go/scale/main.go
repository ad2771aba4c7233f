// Command scale is the Go side of the `scale` benchmark's comparison rows: N idle clients
// of Go's common libraries in one process, against the same peer as the Swift clients
// (Tests/Peers/scale_peer.py or h2_sse.py), measured the same way: client-side RSS growth
// per connection once every client is open and a second has passed.
//
//	ws, wss        github.com/gorilla/websocket, one reading goroutine per connection
//	http, https    github.com/donovanhide/eventsource, one goroutine draining each stream
//	               (https negotiates HTTP/2 by ALPN when the server offers it)
//
// It prints one line: `GO n=N open=SECONDS rss_kib=KIB heap_kib=KIB conns=N goroutines=N`
// (KiB per client), then closes every client and exits. Built from Debian's packages with
// GOPATH=/usr/share/gocode and GO111MODULE=off (Benchmarks/Go/build.sh).
package main

import (
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/donovanhide/eventsource"
	"github.com/gorilla/websocket"
)

type client interface{ close() }

type wsClient struct{ conn *websocket.Conn }

func (c wsClient) close() { c.conn.Close() }

type sseClient struct{ stream *eventsource.Stream }

func (c sseClient) close() { c.stream.Close() }

// dialer opens one client of the kind the URL's scheme names.
type dialer struct {
	url         string
	tlsConfig   *tls.Config
	http        *http.Client
	ws          *websocket.Dialer
	connections int64
}

func newDialer(url, caFile string) (*dialer, error) {
	d := &dialer{url: url}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, err
		}
		roots := x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("no certificate in %s", caFile)
		}
		d.tlsConfig = &tls.Config{RootCAs: roots}
	}
	transport := &http.Transport{TLSClientConfig: d.tlsConfig, ForceAttemptHTTP2: true, MaxIdleConnsPerHost: 1 << 20}
	d.http = &http.Client{Transport: transport}
	d.ws = &websocket.Dialer{TLSClientConfig: d.tlsConfig, HandshakeTimeout: 30 * time.Second}
	return d, nil
}

func (d *dialer) open() (client, error) {
	if strings.HasPrefix(d.url, "ws") {
		conn, _, err := d.ws.Dial(d.url, nil)
		if err != nil {
			return nil, err
		}
		atomic.AddInt64(&d.connections, 1)
		go func() {
			for {
				if _, _, err := conn.ReadMessage(); err != nil {
					return
				}
			}
		}()
		return wsClient{conn}, nil
	}
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		if !info.Reused {
			atomic.AddInt64(&d.connections, 1)
		}
	}}
	request, err := http.NewRequest("GET", d.url, nil)
	if err != nil {
		return nil, err
	}
	request = request.WithContext(httptrace.WithClientTrace(request.Context(), trace))
	stream, err := eventsource.SubscribeWith("", d.http, request)
	if err != nil {
		return nil, err
	}
	go func() {
		for {
			select {
			case _, ok := <-stream.Events:
				if !ok {
					return
				}
			case <-stream.Errors:
			}
		}
	}()
	return sseClient{stream}, nil
}

// openAll opens n clients with at most window connecting at once.
func (d *dialer) openAll(n, window int) ([]client, error) {
	clients := make([]client, n)
	slots := make(chan struct{}, window)
	var wg sync.WaitGroup
	var failure atomic.Value
	for i := 0; i < n; i++ {
		slots <- struct{}{}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer func() { <-slots }()
			c, err := d.open()
			if err != nil {
				failure.Store(err)
				return
			}
			clients[i] = c
		}(i)
	}
	wg.Wait()
	if err, ok := failure.Load().(error); ok {
		return clients, err
	}
	return clients, nil
}

func closeAll(clients []client) {
	for _, c := range clients {
		if c != nil {
			c.close()
		}
	}
}

// residentKiB reads VmRSS from /proc/self/status.
func residentKiB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			fields := strings.Fields(line)
			if len(fields) >= 2 {
				v, _ := strconv.ParseFloat(fields[1], 64)
				return v
			}
		}
	}
	return 0
}

func heapKiB() float64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapInuse) / 1024
}

func main() {
	url := flag.String("url", "", "the peer's URL (ws, wss, http or https)")
	n := flag.Int("n", 1000, "clients")
	window := flag.Int("window", 1000, "clients connecting at once")
	ca := flag.String("ca", "", "a PEM file of the CA that signed the peer's certificate")
	flag.Parse()
	d, err := newDialer(*url, *ca)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(2)
	}
	warm, err := d.openAll(20, 20)
	closeAll(warm)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale: warm-up:", err)
		os.Exit(1)
	}
	d.http.CloseIdleConnections()
	time.Sleep(500 * time.Millisecond)
	runtime.GC()
	atomic.StoreInt64(&d.connections, 0)
	rss, heap, goroutines := residentKiB(), heapKiB(), runtime.NumGoroutine()
	start := time.Now()
	clients, err := d.openAll(*n, *window)
	open := time.Since(start).Seconds()
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		closeAll(clients)
		os.Exit(1)
	}
	time.Sleep(time.Second)
	perClient := func(now, before float64) float64 { return (now - before) / float64(*n) }
	fmt.Printf("GO n=%d open=%.3f rss_kib=%.2f heap_kib=%.2f conns=%d goroutines=%d\n",
		*n, open, perClient(residentKiB(), rss), perClient(heapKiB(), heap),
		atomic.LoadInt64(&d.connections), runtime.NumGoroutine()-goroutines)
	closeAll(clients)
}
