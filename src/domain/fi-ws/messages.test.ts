import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  applicationRequestXml,
  applicationResponseXml,
  parseApplicationRequest,
  parseApplicationResponse,
} from './application-messages.ts';
import {
  certApplicationRequestXml,
  certApplicationResponseXml,
  parseCertApplicationRequest,
  parseCertApplicationResponse,
} from './cert-messages.ts';
import { APPLICATION_NAMESPACE, FAMILY_PROTOCOLS } from './families.ts';
import { parseSoap, soapRequestXml } from './soap.ts';
import { parseXml } from './xml.ts';

test('ApplicationRequest: schema order, escaping and a faithful round trip', () => {
  const request = {
    customerId: '1234567890',
    command: 'UploadFile' as const,
    timestamp: '2026-11-26T10:00:00.000Z',
    environment: 'TEST' as const,
    userFilename: 'OUT-1 <&> "x".xml',
    targetId: 'MLP',
    compressionMethod: 'GZIP' as const,
    softwareId: 'payops 0.1.0',
    fileType: 'pain.001.001.09',
    content: 'H4sIAAAA',
  };
  const xml = applicationRequestXml(request);
  assert.ok(xml.includes(`<ApplicationRequest xmlns="${APPLICATION_NAMESPACE}">`));
  assert.ok(xml.includes('<UserFilename>OUT-1 &lt;&amp;&gt; &quot;x&quot;.xml</UserFilename>'));
  const order = [
    'CustomerId',
    'Command',
    'Timestamp',
    'Environment',
    'UserFilename',
    'TargetId',
    'Compression',
    'CompressionMethod',
    'SoftwareId',
    'FileType',
    'Content',
  ];
  const positions = order.map((name) => xml.indexOf(`<${name}>`));
  assert.deepEqual(
    [...positions].sort((a, b) => a - b),
    positions,
    'elements in schema order',
  );
  assert.deepEqual(parseApplicationRequest(xml), { ...request, status: undefined, fileReferences: [] });
});

test('ApplicationResponse: descriptors and user file types survive a round trip', () => {
  const response = {
    customerId: '1234567890',
    timestamp: '2026-11-26T10:00:00.000Z',
    responseCode: '00',
    responseText: 'OK',
    compressionMethod: undefined,
    fileDescriptors: [
      {
        fileReference: 'A1',
        targetId: null,
        userFilename: null,
        fileType: 'pain.002.001.10',
        fileTimestamp: '2026-11-26T10:00:00Z',
        status: 'NEW',
      },
      {
        fileReference: 'A2',
        targetId: null,
        userFilename: 'x.xml',
        fileType: 'camt.053.001.02',
        fileTimestamp: '2026-11-26T10:00:01Z',
        status: 'DOWNLOADED',
      },
    ],
    userFileTypes: [
      { targetId: 'MLP', fileType: 'pain.001.001.09', fileTypeName: 'Payments', direction: 'Upload' as const },
    ],
    fileType: undefined,
    content: undefined,
  };
  assert.deepEqual(parseApplicationResponse(applicationResponseXml(response)), response);
});

test('CertApplicationRequest: family A carries the transfer key, family B the HMAC; the namespace names the family', () => {
  const common = {
    customerId: '1234567890',
    timestamp: '2026-11-26T10:00:00Z',
    environment: 'TEST' as const,
    softwareId: 'payops',
    command: 'GetCertificate' as const,
    content: 'MIIB',
  };
  const a = certApplicationRequestXml({ family: 'A', ...common, transferKey: '1234567812345678' });
  const b = certApplicationRequestXml({ family: 'B', ...common, hmac: 'c2lnbmF0dXJl' });
  assert.ok(
    a.includes(FAMILY_PROTOCOLS.A.certDataNamespace) && a.includes('<TransferKey>1234567812345678</TransferKey>'),
  );
  assert.ok(b.includes(FAMILY_PROTOCOLS.B.certDataNamespace) && b.includes('<HMAC>c2lnbmF0dXJl</HMAC>'));
  assert.equal(parseCertApplicationRequest(a)?.family, 'A');
  assert.equal(parseCertApplicationRequest(b)?.hmac, 'c2lnbmF0dXJl');
  const response = certApplicationResponseXml({
    family: 'B',
    customerId: '1',
    timestamp: 't',
    responseCode: '00',
    responseText: 'OK',
    certificates: [{ name: 'SIGNING', base64Der: 'AAAA' }],
  });
  assert.deepEqual(parseCertApplicationResponse(response, 'B')?.certificates, [{ name: 'SIGNING', base64Der: 'AAAA' }]);
  assert.equal(parseCertApplicationResponse(response, 'A'), null, 'another family’s namespace is not read');
});

test('SOAP: the operation, header and ApplicationRequest are read back; a DOCTYPE is never parsed', () => {
  const xml = soapRequestXml({
    namespace: 'http://model.bxd.fi',
    operation: 'downloadFileList',
    header: { senderId: '1234567890', requestId: 'r-1', timestamp: '2026-11-26T10:00:00Z' },
    applicationRequestBase64: 'PEFwcC8+',
  });
  const parsed = parseSoap(xml);
  assert.equal(parsed?.kind, 'message');
  if (parsed?.kind === 'message') {
    assert.equal(parsed.element, 'downloadFileListin');
    assert.equal(parsed.header['RequestId'], 'r-1');
    assert.equal(parsed.application, 'PEFwcC8+');
  }
  assert.equal(parseXml('<!DOCTYPE x [<!ENTITY e "boom">]><a>&e;</a>'), null);
  assert.equal(parseSoap('<not-xml'), null);
});
